package app

import (
	"errors"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/pynenc/piceli/internal/object"
)

// Label keys every builder object carries.
const (
	// LabelName holds the component name; part of every selector.
	LabelName = "app.kubernetes.io/name"
	// LabelPartOf holds the app name; part of every selector.
	LabelPartOf = "app.kubernetes.io/part-of"
	// LabelManagedBy is always ManagedBy on builder objects.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of LabelManagedBy on builder objects.
	ManagedBy = "piceli"
	// AnnotationSecretKeys lists, sorted and comma-separated, the keys of a
	// Secret declared by source.
	AnnotationSecretKeys = "piceli.dev/secret-keys"
	// AnnotationWait, "true" or "false" on any object, says whether Piceli
	// waits for the object to be ready before applying the next wave; it
	// beats [release] wait in release.toml. See NoWait.
	AnnotationWait = object.WaitAnnotation
)

// App accumulates the objects of one application in declaration order,
// together with the errors found while declaring them. Create one with New;
// the zero value is not usable. An App is not safe for concurrent use.
type App struct {
	name       string
	entries    []*entry
	seen       map[string]bool
	components []*component
	byName     map[string]*component
	secrets    []SecretInfo
	errs       []error
	// charts and kustomizations are rendered by Piceli (package.go).
	charts         []*ChartInfo
	kustomizations []*KustomizationInfo
	// environments holds the overrides of each Environment, by name.
	environments map[string][]Override
	envOrder     []string
}

// entry is one declared object: a typed object built here (converted at
// Composition time, so later declarations may still adjust it) or a ready
// unstructured manifest.
type entry struct {
	origin   string
	deps     *[]string
	typed    runtime.Object
	manifest map[string]any
	zeros    []string // Zero paths of a typed object
	// about are the workloads the object exists for (a workload's own
	// object, its Service, autoscaler, budget and traffic rules): Drop of
	// any of them drops it too.
	about []*Workload
}

// component is a typed workload: its name, kind, ports and readiness.
type component struct {
	info     ComponentInfo
	workload *Workload
}

// New returns an empty App. The name becomes the app.kubernetes.io/part-of
// label of every builder object and must be a DNS-1123 label.
func New(name string) *App {
	a := &App{name: name, seen: map[string]bool{}, byName: map[string]*component{}}
	if msgs := dnsLabel(name); msgs != "" {
		a.errorf("app %q: name must be a %s", name, msgs)
	}
	return a
}

// Name returns the app's name.
func (a *App) Name() string { return a.name }

// errorf records a declaration error.
func (a *App) errorf(format string, args ...any) {
	a.errs = append(a.errs, fmt.Errorf(format, args...))
}

// Errorf records a declaration error that App.Composition returns with
// the builders' own, so that a package declaring components on an App
// (a reusable component module, docs/packages.md) reports a bad option
// the way a builder does: by naming its component and the option.
func (a *App) Errorf(format string, args ...any) {
	a.errorf(format, args...)
}

// claim reserves kind/name, recording an error when it is already declared.
// It reports whether the name was free.
func (a *App) claim(kind, name string) bool {
	key := strings.ToLower(kind) + "/" + name
	if a.seen[key] {
		a.errorf("%s %q declared twice", strings.ToLower(kind), name)
		return false
	}
	a.seen[key] = true
	return true
}

// add appends a builder object owned by the named component, applying the
// edits and checking the zero paths of c (nil for a builder without
// options), and returns its entry.
func (a *App) add(component string, obj runtime.Object, c *common) *entry {
	e := &entry{origin: "component " + component, typed: obj}
	if c != nil {
		a.finish(obj, c)
		e.deps, e.zeros = &c.deps, c.zeros
	}
	a.entries = append(a.entries, e)
	return e
}

// labels returns the labels of a builder object of the named component.
func (a *App) labels(component string) map[string]string {
	return map[string]string{
		LabelName:      component,
		LabelPartOf:    a.name,
		LabelManagedBy: ManagedBy,
	}
}

// selector returns the pod selector of the named component.
func (a *App) selector(component string) map[string]string {
	return map[string]string{LabelName: component, LabelPartOf: a.name}
}

// Composition validates what was declared and returns it as a Composition.
// It returns every recorded error, each naming its component and field,
// joined with errors.Join, together with the errors recorded by ctx (such
// as an image missing from release.toml). ctx may be nil in tests.
func (a *App) Composition(ctx *Context) (*Composition, error) {
	errs := append([]error{}, a.errs...)
	if ctx != nil {
		errs = append(errs, ctx.errs...)
	}
	errs = append(errs, a.applyEnvironment(ctx)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	objects, convErrs := a.objects(ctx)
	errs = append(errs, convErrs...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	charts, kusts := a.packages()
	return &Composition{doc: Document{
		Schema:         Schema,
		Objects:        objects,
		Components:     a.componentInfos(),
		Secrets:        append([]SecretInfo(nil), a.secrets...),
		Charts:         charts,
		Kustomizations: kusts,
	}}, nil
}

// objects converts every entry to a protocol Object, in declaration order.
func (a *App) objects(ctx *Context) ([]Object, []error) {
	objects := make([]Object, 0, len(a.entries))
	var errs []error
	for _, e := range a.entries {
		m := e.manifest
		if e.typed != nil {
			bindNamespace(e.typed, ctx)
			var err error
			if m, err = toManifest(e.typed); err == nil {
				err = setZeros(m, e.typed, e.zeros)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", e.origin, err))
				continue
			}
		}
		objects = append(objects, Object{Origin: e.origin, DependsOn: depsOf(e), Object: &unstructured.Unstructured{Object: m}})
	}
	return objects, errs
}

func depsOf(e *entry) []string {
	if e.deps == nil || len(*e.deps) == 0 {
		return nil
	}
	return append([]string(nil), *e.deps...)
}

// componentInfos copies the component infos in declaration order.
func (a *App) componentInfos() []ComponentInfo {
	infos := make([]ComponentInfo, 0, len(a.components))
	for _, c := range a.components {
		info := c.info
		info.Ports = append([]PortInfo(nil), c.info.Ports...)
		info.DependsOn = append([]string(nil), c.workload.deps...)
		if len(info.DependsOn) == 0 {
			info.DependsOn = nil
		}
		infos = append(infos, info)
	}
	return infos
}

// bindNamespace sets the namespace of a RoleBinding's service account
// subjects, which Kubernetes requires, to the release's target namespace.
func bindNamespace(obj runtime.Object, ctx *Context) {
	rb, ok := obj.(*rbacv1.RoleBinding)
	if !ok || ctx == nil {
		return
	}
	for i := range rb.Subjects {
		if rb.Subjects[i].Kind == rbacv1.ServiceAccountKind && rb.Subjects[i].Namespace == "" {
			rb.Subjects[i].Namespace = ctx.Namespace
		}
	}
}
