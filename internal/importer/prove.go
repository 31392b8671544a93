package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/importgen"
	"github.com/pynenc/piceli/internal/object"
)

// maxRounds bounds the renders of one import: each round lowers the form
// of every object whose form did not reproduce it, and there are three
// forms.
const maxRounds = 4

// generate generates the module, renders it until every object renders
// as it was imported (lowering the form of those that do not), then
// writes it to Out. A module that does not render (its program failed or
// panicked) or still differs after maxRounds is refused: nothing is
// written.
func (r *run) generate(ctx context.Context, objs []importgen.Object) (*Result, error) {
	want, err := Normal(manifests(objs), r.namespace, r.app)
	if err != nil {
		return nil, refuse(err)
	}
	staging, err := os.MkdirTemp("", "piceli-import-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(staging)
	dir := staging + "/module"
	for round := 1; round <= maxRounds; round++ {
		out, err := importgen.Generate(r.input(objs))
		if err != nil {
			return nil, refuse(err)
		}
		if err := stage(dir, out.Files); err != nil {
			return nil, err
		}
		fmt.Fprintf(logOf(r.opts), "rendering the generated module to check it reproduces %d objects\n", len(objs))
		done, err := r.check(ctx, dir, objs, out, want)
		switch {
		case err != nil:
			return nil, err
		case done:
			return r.write(dir, objs, out)
		}
	}
	return nil, refusef("import: the generated module still differs from the imported objects after %d renders; nothing was written", maxRounds)
}

// check renders the module and lowers the form of each object it does not
// reproduce; done reports that it reproduced every one.
func (r *run) check(ctx context.Context, dir string, objs []importgen.Object, out *importgen.Output, want map[object.Ref]map[string]any) (bool, error) {
	got, err := r.renderModule(ctx, dir)
	if err != nil {
		return false, err
	}
	if got.err != nil {
		return false, r.lowerAllBuilders(objs, out, got.err)
	}
	diffs := differences(want, got.objects)
	if len(diffs) == 0 {
		return true, nil
	}
	for ref, path := range diffs {
		if err := r.lower(ref, path, objs, out); err != nil {
			return false, err
		}
	}
	return false, nil
}

// lowerAllBuilders answers a module that does not render (a builder
// refused a call the import wrote) by writing as literals the builder
// objects the error names ("deployment \"web\": ..."), or every builder
// object, Secrets aside, when it names none; without any to lower, the
// error stands.
func (r *run) lowerAllBuilders(objs []importgen.Object, out *importgen.Output, cause error) error {
	named := r.namedIn(objs, out, cause)
	lowered := false
	for i := range objs {
		if out.Forms[i] == importgen.Builder && !object.IsSecret(objs[i].Manifest) && (len(named) == 0 || named[i]) {
			objs[i].Max, lowered = importgen.Literal, true
			r.note(i, "the builders refused its call: "+firstLine(cause.Error()))
		}
	}
	if !lowered {
		return refusef("import: the generated module does not render, so nothing was written: %w", cause)
	}
	fmt.Fprintf(logOf(r.opts), "the builder calls do not render (%v); writing them as literals\n", cause)
	return nil
}

// namedIn returns the builder objects an error of the composition names
// as `kind "name":`.
func (r *run) namedIn(objs []importgen.Object, out *importgen.Output, cause error) map[int]bool {
	named := map[int]bool{}
	msg := cause.Error()
	for i, o := range objs {
		u := o.Manifest
		if out.Forms[i] == importgen.Builder && strings.Contains(msg, fmt.Sprintf("%s %q:", strings.ToLower(u.GetKind()), u.GetName())) {
			named[i] = true
		}
	}
	return named
}

// note records why a render lowered object i's form.
func (r *run) note(i int, why string) {
	if r.lowered == nil {
		r.lowered = map[int]string{}
	}
	r.lowered[i] = why
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// lower gives the object ref the next plainer form.
func (r *run) lower(ref object.Ref, path string, objs []importgen.Object, out *importgen.Output) error {
	for i := range objs {
		if r.refOf(objs[i].Manifest) != ref {
			continue
		}
		switch {
		case object.IsSecret(objs[i].Manifest):
			return refusef("%s (%s): the secret declaration renders differently at %s", ref, objs[i].Origin, path)
		case out.Forms[i] == importgen.Builder && !objs[i].SkipLiteral:
			objs[i].Max = importgen.Literal
		case out.Forms[i] != importgen.File:
			objs[i].Max = importgen.File
		default:
			return refusef("import: %s (%s) renders differently from its YAML file at %s; nothing was written", ref, objs[i].Origin, path)
		}
		fmt.Fprintf(logOf(r.opts), "%s: its %s renders differently at %s; writing it as a %s\n", ref, out.Forms[i], path, objs[i].Max)
		r.note(i, fmt.Sprintf("its %s rendered differently at %s", out.Forms[i], path))
		return nil
	}
	return refusef("import: rendering the module gave %s, which was not imported (%s); nothing was written", ref, path)
}

// input is what importgen generates from.
func (r *run) input(objs []importgen.Object) importgen.Input {
	module := r.opts.Module
	if module == "" {
		module = "example.com/" + r.app
	}
	return importgen.Input{
		App: r.app, Module: module, PiceliSource: r.opts.PiceliSource, Source: r.description,
		Target:  importgen.Target{Kubeconfig: r.kubeconfig, Context: r.context, Namespace: r.namespace, Namespaces: r.others},
		Objects: objs,
	}
}

// write installs the proven module in Out.
func (r *run) write(dir string, objs []importgen.Object, out *importgen.Output) (*Result, error) {
	abs := absolute(r.opts.Out)
	files, err := install(dir, abs)
	if err != nil {
		return nil, err
	}
	res := &Result{App: r.app, Namespace: r.namespace, Dir: abs, Spec: filepath.Join(abs, "release.toml"), Files: files, Objects: len(objs), Images: out.Images, Forms: out.Forms}
	refs := make([]object.Ref, len(objs))
	reasons := slices.Clone(out.Reasons)
	for i, o := range objs {
		refs[i] = r.refOf(o.Manifest)
		if why := r.lowered[i]; why != "" && out.Forms[i] != importgen.Builder {
			reasons[i] = why
		}
	}
	tally(res, objs, refs, out.Forms, reasons)
	return res, nil
}

func manifests(objs []importgen.Object) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		out[i] = o.Manifest
	}
	return out
}
