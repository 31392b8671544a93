package importgen

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/pynenc/piceli/internal/object"
)

// Form is how one imported object is written. Forms are ordered: Builder
// is the best, File the plainest; an object gets the best form it allows.
type Form string

// The forms of an imported object.
const (
	// Builder is a call of the app builders (a.Deployment(...)); a Secret
	// with keys is always one, a declaration by source.
	Builder Form = "builder"
	// Literal is a typed k8s.io/api object passed to a.Objects.
	Literal Form = "literal"
	// File is a YAML file of the module loaded with a.File.
	File Form = "file"
)

// rank orders forms, best first; the zero Form ranks as Builder.
func (f Form) rank() int {
	switch f {
	case Literal:
		return 1
	case File:
		return 2
	}
	return 0
}

// allows reports whether a ceiling of f allows form g.
func (f Form) allows(g Form) bool { return g.rank() >= f.rank() }

// Object is one object to import, cleaned by the caller: server-owned
// fields gone and the target namespace removed (objects of other
// namespaces keep theirs).
type Object struct {
	Origin   string // where it came from, for errors
	Manifest *unstructured.Unstructured
	// Max is the best form the object may take; zero allows every form.
	// The importer lowers it when a render shows that a form does not
	// reproduce the object.
	Max Form
	// SkipLiteral rules out the literal form, for an object its Go type
	// does not hold whole: it is a builder call or a YAML file.
	SkipLiteral bool
}

// Target is the [target] of the generated release.toml. An empty
// Kubeconfig or Context writes a placeholder to edit.
type Target struct {
	Kubeconfig string // as it should appear in release.toml
	Context    string
	Namespace  string   // required
	Namespaces []string // other namespaces the objects live in
}

// Input is what Generate turns into a module. App, Module, Target.Namespace
// and PiceliSource are required.
type Input struct {
	App          string // app and release name, a DNS-1123 label
	Module       string // Go module path
	PiceliSource string // local Piceli checkout the module's replace points at
	Source       string // what was imported, for the package comment ("k8s/", "namespace shop")
	Target       Target
	Objects      []Object
}

// Output is a generated module.
type Output struct {
	// Files maps slash-separated paths in the module to their content.
	Files map[string][]byte
	// Forms are the forms the objects were written in, index-aligned with
	// Input.Objects.
	Forms []Form
	// Reasons say, index-aligned with Input.Objects, why an object is not
	// a builder call ("" for those that are).
	Reasons []string
	// Images maps the names in [images] to image references.
	Images map[string]string
}

// decl is one object on its way to code.
type decl struct {
	index int
	src   string // its origin
	obj   *unstructured.Unstructured
	ref   object.Ref
	typed runtime.Object // nil for kinds without a Go type
	max   Form
	// noLiteral is Object.SkipLiteral.
	noLiteral bool
	form      Form
	built     built // the builder call, for Builder
	// reason says why the object is not a builder call, when it is not.
	reason string
	// scope is the component the object is declared in, "" for Build.
	scope string
}

// Generate writes the module for in: go.mod, infra.go with Build, one Go
// file per kind of typed literals, YAML files under manifests/ and
// release.toml. Every object takes the best form allowed by its Max that
// the builders or k8s.io/api express; Secrets with keys become
// declarations whose keys come from the cluster Secret of the same name,
// and no Secret value is ever written. Errors name the object's origin.
func Generate(in Input) (*Output, error) {
	if err := checkInput(in); err != nil {
		return nil, err
	}
	g := newGen(in)
	if err := g.decide(); err != nil {
		return nil, err
	}
	return g.output()
}

func checkInput(in Input) error {
	switch {
	case in.App == "":
		return fmt.Errorf("import: no app name")
	case in.Module == "":
		return fmt.Errorf("import: no module path")
	case in.Target.Namespace == "":
		return fmt.Errorf("import: no target namespace")
	case in.PiceliSource == "":
		return fmt.Errorf("import: no Piceli source directory for the module's replace directive")
	case len(in.Objects) == 0:
		return fmt.Errorf("import: no objects")
	}
	return checkModulePath(in.Module)
}
