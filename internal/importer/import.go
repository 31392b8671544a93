package importer

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/pynenc/piceli/internal/importgen"
)

// Options says where the module goes and what it is called. Out and
// PiceliSource are required; the zero value of every other field picks
// the default its comment gives.
type Options struct {
	Out string // the module's directory, created if missing
	// Name is the app and release name, a DNS-1123 label. "" takes the
	// app of objects Piceli made, else the namespace (live) or the output
	// directory's name (files).
	Name   string
	Module string // Go module path; "" means "example.com/" + Name
	// Force lets the import write into an existing, non-empty Out: it
	// replaces the Go files, go.mod, go.sum, release.toml, .gitignore and
	// manifests/ there and keeps everything else.
	Force        bool
	PiceliSource string    // local Piceli checkout the module's replace directive points at
	Log          io.Writer // one line per slow step; nil is silent
	CacheDir     string    // compiled compositions (compose.Options.CacheDir)
}

// Result is what an import wrote. Report returns it as the versioned
// document piceli import -o json prints.
type Result struct {
	App       string   `json:"app"`       // the app and release name
	Namespace string   `json:"namespace"` // the target namespace
	Dir       string   `json:"dir"`       // the module's directory, absolute
	Spec      string   `json:"spec"`      // its release.toml
	Files     []string `json:"files"`     // written, relative to Dir, sorted
	Objects   int      `json:"objects"`   // objects imported
	// Builders, Literals and YAMLFiles count the objects written as
	// builder calls (Secret declarations among them), k8s.io/api literals
	// and YAML files.
	Builders  int `json:"builders"`
	Literals  int `json:"literals"`
	YAMLFiles int `json:"yamlFiles"`
	// Kinds counts the forms by kind, kinds sorted.
	Kinds []KindCount `json:"kinds"`
	// Fallbacks lists, in import order, the objects not written as
	// builder calls and why.
	Fallbacks []Fallback        `json:"fallbacks"`
	Images    map[string]string `json:"images"` // [images] of release.toml
	// Forms are the objects' forms, in import order, for tests.
	Forms []importgen.Form `json:"-"`
}

// FromFiles imports the objects of YAML and JSON files and directories
// (read recursively) into a Go module in opts.Out. The target namespace is
// the one most objects name (or the app's name); objects of other
// namespaces keep theirs, and release.toml allows those namespaces. It
// refuses, writing nothing, an existing output directory (unless Force),
// unreadable or malformed files and objects that do not fit their type,
// naming the file and document.
func FromFiles(ctx context.Context, paths []string, opts Options) (*Result, error) {
	if err := checkOut(opts.Out, opts.Force); err != nil {
		return nil, err
	}
	srcs, err := readFiles(paths)
	if err != nil {
		return nil, err
	}
	if len(srcs) == 0 {
		return nil, refusef("import yaml: %v hold no objects", paths)
	}
	r := &run{opts: opts, sources: srcs, description: describePaths(paths)}
	r.namespace, r.others = chooseNamespace(srcs)
	return r.finish(ctx, filepath.Base(absolute(opts.Out)))
}

// FromCluster imports the objects of a live namespace, read with one LIST
// per kind through exactly the kubeconfig file and context t names, into a
// Go module in opts.Out; release.toml targets that context and namespace.
// What the server owns is left out: status and server metadata, fields
// only the control plane wrote, fields the server defaulted where
// managedFields tell them apart (kubectl's last-applied-configuration
// says what a client-side apply set), objects controllers made for
// listed ones (a Deployment's ReplicaSets and pods), owner references to
// objects not imported, endpoints and events, and the namespace's
// kube-root-ca.crt, default ServiceAccount and its token. Secret values
// are dropped as they arrive; the module imports them from the cluster at
// the first plan.
func FromCluster(ctx context.Context, t Target, opts Options) (*Result, error) {
	if err := checkOut(opts.Out, opts.Force); err != nil {
		return nil, err
	}
	srcs, err := readLive(ctx, t, logOf(opts))
	if err != nil {
		return nil, err
	}
	if len(srcs) == 0 {
		return nil, refusef("import live: namespace %q holds nothing to import", t.Namespace)
	}
	r := &run{opts: opts, sources: srcs, namespace: t.Namespace, description: "namespace " + t.Namespace + " of context " + t.Context}
	r.kubeconfig, r.context = relativeTo(absolute(opts.Out), t.Kubeconfig), t.Context
	return r.finish(ctx, t.Namespace)
}

// run is one import on its way from sources to a written module.
type run struct {
	opts Options
	// lowered says, by object index, why a render lowered its form.
	lowered     map[int]string
	sources     []source
	namespace   string   // the target namespace
	others      []string // other namespaces objects live in
	app         string
	kubeconfig  string // for release.toml; "" writes a placeholder
	context     string
	description string // what was imported, for the package comment
}

// finish names the app, checks the objects and generates, proves and
// writes the module.
func (r *run) finish(ctx context.Context, fallbackName string) (*Result, error) {
	if err := r.name(fallbackName); err != nil {
		return nil, err
	}
	objs, err := r.objects()
	if err != nil {
		return nil, err
	}
	return r.generate(ctx, objs)
}

func logOf(opts Options) io.Writer {
	if opts.Log == nil {
		return io.Discard
	}
	return opts.Log
}

func absolute(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}

// relativeTo writes path relative to dir when it can, as release.toml
// resolves it.
func relativeTo(dir, path string) string {
	rel, err := filepath.Rel(dir, absolute(path))
	if err != nil {
		return absolute(path)
	}
	return rel
}

func describePaths(paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	return fmt.Sprintf("%s and %d more", paths[0], len(paths)-1)
}
