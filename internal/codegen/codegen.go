package codegen

import (
	"context"
	"net/http"

	"github.com/pynenc/piceli/internal/crdgen"
	"github.com/pynenc/piceli/refusal"
)

// ResultSchema names the JSON document of a Result.
const ResultSchema = "piceli.codegen/v1"

// DefaultOut is the output directory when Options.Out is empty.
const DefaultOut = "crds"

// Options say where CRDs come from and where the packages go. Exactly one
// of Files and Cluster is set.
type Options struct {
	// Files are CRD files (YAML streams or JSON) and directories, whose
	// .yaml, .yml and .json files are read recursively. Objects of other
	// kinds are skipped.
	Files []string
	// Cluster reads the CRDs from a cluster instead, read-only.
	Cluster *Cluster
	// Out is the directory the packages are written under (DefaultOut when
	// empty); it is created when missing.
	Out string
	// Package is the Go package name of every package; empty names each
	// after its version.
	Package string
}

// Cluster names CRDs to read from a cluster by the release API's
// connection rules: an explicit kubeconfig file and context, never
// $KUBECONFIG, ~/.kube/config or a current-context. Only GET requests are
// sent.
type Cluster struct {
	Kubeconfig string   // required
	Context    string   // required
	CRDs       []string // CRD names, e.g. certificates.cert-manager.io; required
	// AllowExec permits a kubeconfig user that runs a credential plugin.
	AllowExec bool
	// WrapTransport wraps every request's transport; tests record requests
	// with it.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// Result is what CRD wrote; it is also the document `piceli codegen crd
// -o json` prints.
type Result struct {
	Schema   string           `json:"schema"`   // ResultSchema
	Out      string           `json:"out"`      // the output directory
	Files    []string         `json:"files"`    // written, slash-separated, relative to Out, sorted
	Removed  []string         `json:"removed"`  // generated files of earlier runs no kind needs any more
	Packages []crdgen.Package `json:"packages"` // the packages, sorted by directory
	Skipped  int              `json:"skipped"`  // objects of other kinds in the files
}

// refuse marks err as bad input refused before anything was written (a
// file that cannot be read or decoded, a CRD the generator cannot turn
// into Go, a CRD the cluster does not have, an unusable output directory):
// refusal.Is reports it, as it does an unusable target (kube.TargetError).
func refuse(err error) error { return refusal.New(err) }

func refusef(format string, args ...any) error { return refusal.Errorf(format, args...) }

// CRD generates the Go packages of the CRDs opts names and writes them
// under opts.Out. Everything is read, generated and checked before the
// first file is written: a file there that this command did not generate
// (it lacks the generated-code header) is never replaced, and generated
// files of earlier runs that no kind needs any more are removed from the
// package directories written.
func CRD(ctx context.Context, opts Options) (*Result, error) {
	if opts.Out == "" {
		opts.Out = DefaultOut
	}
	docs, skipped, err := read(ctx, opts)
	if err != nil {
		return nil, err
	}
	out, err := crdgen.Generate(crdgen.Input{Documents: docs, Package: opts.Package})
	if err != nil {
		return nil, refuse(err)
	}
	res := &Result{Schema: ResultSchema, Out: opts.Out, Packages: out.Packages, Skipped: skipped, Files: []string{}, Removed: []string{}}
	if err := write(opts.Out, out, res); err != nil {
		return nil, err
	}
	return res, nil
}

// read returns the CRDs of the files or the cluster.
func read(ctx context.Context, opts Options) ([]crdgen.Document, int, error) {
	switch {
	case len(opts.Files) > 0 && opts.Cluster != nil:
		return nil, 0, refusef("CRD files and a cluster were both named: read from one of them")
	case opts.Cluster != nil:
		docs, err := fromCluster(ctx, *opts.Cluster)
		return docs, 0, err
	case len(opts.Files) == 0:
		return nil, 0, refusef("no CRD files named, and no cluster to read CRDs from")
	}
	return fromFiles(opts.Files)
}
