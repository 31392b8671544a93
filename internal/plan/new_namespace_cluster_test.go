package plan_test

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// absentNamespace returns the name of a namespace the sandbox does not
// have. Nothing creates it: planning writes nothing.
func absentNamespace(t *testing.T, f *fixture) string {
	t.Helper()
	name := "t-absent-" + strings.ToLower(rand.Text()[:10])
	_, err := f.sb.Clientset.CoreV1().Namespaces().Get(t.Context(), name, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("get Namespace/%s = %v, want not found", name, err)
	}
	return name
}

// moveTo retargets the fixture at namespace ns.
func (f *fixture) moveTo(ns string) {
	f.ns, f.input.Namespace = ns, ns
	for _, o := range f.input.Objects {
		if o.Object.GetNamespace() != "" {
			o.Object.SetNamespace(ns)
		}
	}
}

// TestPlanValidatesObjectsOfANewNamespace expects the server to judge
// every object at plan time even when its namespace does not exist yet and
// the plan creates it: what is refused in an existing namespace is refused
// there too, before anything is written.
func TestPlanValidatesObjectsOfANewNamespace(t *testing.T) {
	bad := []struct {
		name   string
		change func(u *unstructured.Unstructured)
		want   string
	}{
		{"a bad name", func(u *unstructured.Unstructured) { u.SetName("Bad_Name") }, `metadata.name: Invalid value: "Bad_Name"`},
		{"negative replicas", func(u *unstructured.Unstructured) {
			unstructured.SetNestedField(u.Object, int64(-5), "spec", "replicas")
		}, "spec.replicas: Invalid value: -5"},
		{"a selector that misses its pods", func(u *unstructured.Unstructured) {
			unstructured.SetNestedStringMap(u.Object, map[string]string{"app": "other"}, "spec", "selector", "matchLabels")
		}, "`selector` does not match template `labels`"},
	}
	for _, tt := range bad {
		for _, where := range []string{"an existing namespace", "a namespace the plan creates"} {
			t.Run(tt.name+" in "+where, func(t *testing.T) {
				f := example(t, "hello")
				if where != "an existing namespace" {
					f.moveTo(absentNamespace(t, f))
				}
				tt.change(f.object(t, "Deployment", "web"))
				_, err := plan.Make(sandboxtest.Context(t, time.Minute), f.client, f.input, plan.Options{Key: testKey})
				if !errors.Is(err, plan.ErrRefused) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "Deployment/"+f.ns+"/") {
					t.Fatalf("plan.Make() error = %v, want plan.ErrRefused naming Deployment/%s/ and %q", err, f.ns, tt.want)
				}
			})
		}
	}
	t.Run("a valid release in a namespace the plan creates", func(t *testing.T) {
		f := example(t, "hello")
		f.moveTo(absentNamespace(t, f))
		var c counter
		f.client = f.connectCounting(t, &c)
		p := f.plan(t, plan.Options{})
		// One dry-run create in the probe namespace per object, and no
		// dry-run apply that could only answer "namespace not found"; the
		// Namespace itself is dry-run applied.
		if c.applies.Load() != 1 || c.other.Load() != int64(len(p.Steps)-1) {
			t.Errorf("plan into a new namespace sent %d dry-run applies and %d other requests, want 1 (the Namespace) and %d", c.applies.Load(), c.other.Load(), len(p.Steps)-1)
		}
		for _, kind := range []string{"Namespace", "Deployment", "Service"} {
			name := "web"
			if kind == "Namespace" {
				name = f.ns
			}
			if s := find(t, p, kind, name); s.Action != plan.Create {
				t.Errorf("%s: action %s, want create", s.Ref, s.Action)
			}
		}
	})
}

// TestPlanRefusesAnAbsentNamespaceItDoesNotCreate expects an object in an
// allowed namespace that neither exists nor is declared to be refused at
// plan time, not to fail at apply.
func TestPlanRefusesAnAbsentNamespaceItDoesNotCreate(t *testing.T) {
	f := example(t, "hello")
	absent := absentNamespace(t, f)
	f.object(t, "Service", "web").SetNamespace(absent)
	f.input.Namespaces = []string{absent}
	_, err := plan.Make(sandboxtest.Context(t, time.Minute), f.client, f.input, plan.Options{Key: testKey})
	want := "Service/" + absent + "/web"
	if !errors.Is(err, plan.ErrRefused) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "this plan does not create it") {
		t.Fatalf("plan.Make() error = %v, want plan.ErrRefused naming %s and the absent namespace", err, want)
	}
}
