package plan_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/spec"
)

// fixture is one release planned into a fresh sandbox namespace.
type fixture struct {
	sb     *sandboxtest.Sandbox
	client *kube.Client
	ns     string
	input  plan.Input
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// example loads examples/<name> rendered for a fresh namespace.
// exampleEnv is the environment a test renders of an example whose
// release.toml declares environments.
var exampleEnv = map[string]string{"shop": "staging"}

func example(t *testing.T, name string) *fixture {
	t.Helper()
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	s, err := spec.LoadEnv(filepath.Join(repoRoot(), "examples", name, "release.toml"), exampleEnv[name])
	if err != nil {
		t.Fatal(err)
	}
	s.Target.Namespace = ns
	for k := range s.Builds { // images a release takes from a build: any digest will do here
		s.Images[k] = "piceli.local/build/" + k + "@sha256:" + strings.Repeat("0", 64)
	}
	res, err := compose.Load(context.Background(), s, compose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := render.Objects(res.Objects, render.Options{Namespace: ns, Release: s.Release.Name})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sb: sb, ns: ns, client: connect(t, sb)}
	f.input = plan.Input{
		Release:    plan.Release{Name: s.Release.Name, Owner: s.Release.Owner, FieldManager: s.Release.FieldManager},
		Namespace:  ns,
		Objects:    objs,
		Components: res.Components,
	}
	return f
}

func connect(t *testing.T, sb *sandboxtest.Sandbox) *kube.Client {
	t.Helper()
	c, err := kube.Connect(context.Background(), kube.Options{Kubeconfig: sb.Kubeconfig, Context: sb.Context})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var testKey = []byte("0123456789abcdef0123456789abcdef")

// plan makes a plan of the fixture and checks its invariants.
func (f *fixture) plan(t *testing.T, opts plan.Options) *plan.Plan {
	t.Helper()
	if opts.Key == nil {
		opts.Key = testKey
	}
	p, err := plan.Make(sandboxtest.Context(t, time.Minute), f.client, f.input, opts)
	if err != nil {
		t.Fatalf("plan.Make() error = %v", err)
	}
	if err := plan.Validate(p); err != nil {
		t.Fatalf("plan.Validate() = %v", err)
	}
	return p
}

// apply writes every object with server-side apply as the release's field
// manager would, standing in for the engine.
func (f *fixture) apply(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	ctx := sandboxtest.Context(t, time.Minute)
	decl := make([]object.Declared, len(objs))
	for i, o := range objs {
		decl[i] = object.Declared{Origin: "test", Object: o}
	}
	res, err := f.client.Resolve(ctx, decl)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range objs {
		ri := f.client.Dynamic.Resource(res[i].GVR)
		opts := metav1.ApplyOptions{FieldManager: f.input.Release.FieldManager, Force: true}
		var err error
		if res[i].Namespaced {
			_, err = ri.Namespace(o.GetNamespace()).Apply(ctx, o.GetName(), o, opts)
		} else {
			_, err = ri.Apply(ctx, o.GetName(), o, opts)
		}
		if err != nil {
			t.Fatalf("apply %s/%s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

func (f *fixture) applyAll(t *testing.T) {
	t.Helper()
	f.apply(t, render.Manifests(f.input.Objects)...)
}

// find returns the step for kind/name.
func find(t *testing.T, p *plan.Plan, kind, name string) plan.Step {
	t.Helper()
	for _, s := range p.Steps {
		if s.Ref.Kind == kind && s.Ref.Name == name {
			return s
		}
	}
	t.Fatalf("plan has no step for %s/%s", kind, name)
	return plan.Step{}
}

// object returns the rendered object kind/name of the fixture.
func (f *fixture) object(t *testing.T, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range f.input.Objects {
		if o.Object.GetKind() == kind && o.Object.GetName() == name {
			return o.Object
		}
	}
	t.Fatalf("fixture has no %s/%s", kind, name)
	return nil
}
