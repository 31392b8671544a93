package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/spec"
	pub "github.com/pynenc/piceli/plan"
)

// annotated returns an object of kind (an "apps/Deployment" names its
// group) with the piceli.dev/wait annotation set to value, or without it
// when value is "-".
func annotated(kind, value string) *unstructured.Unstructured {
	apiVersion := "v1"
	if group, k, ok := strings.Cut(kind, "/"); ok {
		apiVersion, kind = group+"/v1", k
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	u.SetName("x")
	u.SetNamespace("shop")
	if value != "-" {
		u.SetAnnotations(map[string]string{object.WaitAnnotation: value})
	}
	return u
}

// The annotation of an object beats the release's policy; without one the
// policy decides, "ready" when empty; a CRD is always waited for.
func TestNoWaitAnnotationBeatsTheReleasePolicy(t *testing.T) {
	tests := []struct {
		name       string
		kind       string
		annotation string // "-": none
		policy     string
		want       NoWaitReason
	}{
		{"no annotation, default policy: waited for", "Service", "-", "", ""},
		{"no annotation, wait = ready: waited for", "Service", "-", spec.WaitReady, ""},
		{"no annotation, wait = none: not waited for", "Service", "-", spec.WaitNone, NoWaitRelease},
		{"annotated false, wait = ready: not waited for", "Service", "false", spec.WaitReady, NoWaitAnnotated},
		{"annotated false, wait = none: not waited for, by the annotation", "Service", "false", spec.WaitNone, NoWaitAnnotated},
		{"annotated true, wait = none: waited for", "apps/Deployment", "true", spec.WaitNone, ""},
		{"annotated true, wait = ready: waited for", "apps/Deployment", "true", spec.WaitReady, ""},
		{"a CRD under wait = none is still waited for", "apiextensions.k8s.io/CustomResourceDefinition", "-", spec.WaitNone, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noWait(annotated(tt.kind, tt.annotation), tt.policy); got != tt.want {
				t.Errorf("noWait(%s annotated %q, policy %q) = %q, want %q", tt.kind, tt.annotation, tt.policy, got, tt.want)
			}
		})
	}
}

func TestCheckWaitRefusesValuesOtherThanTrueOrFalse(t *testing.T) {
	tests := []struct {
		kind, value string
		want        string // "" means accepted
	}{
		{"Service", "-", ""},
		{"Service", "true", ""},
		{"Service", "false", ""},
		{"Service", "no", `piceli.dev/wait is "no"; want "true" or "false"`},
		{"Service", "False", `piceli.dev/wait is "False"; want "true" or "false"`},
		{"Service", "", `piceli.dev/wait is ""; want "true" or "false"`},
		{"apiextensions.k8s.io/CustomResourceDefinition", "true", ""},
		{"apiextensions.k8s.io/CustomResourceDefinition", "false", "always waited for until Established"},
	}
	for _, tt := range tests {
		err := checkWait(annotated(tt.kind, tt.value))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("checkWait(%s annotated %q) = %v, want nil", tt.kind, tt.value, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrBadAnnotation)):
			t.Errorf("checkWait(%s annotated %q) = %v, want an ErrBadAnnotation containing %q", tt.kind, tt.value, err, tt.want)
		}
	}
}

// A bad annotation is refused before the cluster is touched (Make gets no
// client here, so any cluster access would panic), naming every object
// refused and where it was declared.
func TestMakeRefusesBadWaitAnnotationsBeforeReadingTheCluster(t *testing.T) {
	bad, worse, good := annotated("Service", "yes"), annotated("apps/Deployment", "0"), annotated("ConfigMap", "false")
	worse.SetName("web")
	in := Input{Namespace: "shop", Objects: []object.Declared{
		{Origin: "manifests/svc.yaml:1", Object: bad},
		{Origin: "component web", Object: worse},
		{Origin: "manifests/cm.yaml:1", Object: good},
	}}
	_, err := Make(context.Background(), nil, in, Options{})
	if !errors.Is(err, ErrBadAnnotation) {
		t.Fatalf("Make() = %v, want an error wrapping ErrBadAnnotation", err)
	}
	for _, want := range []string{
		`plan Service/shop/x (declared by manifests/svc.yaml:1): bad annotation: piceli.dev/wait is "yes"`,
		`plan Deployment/shop/web (declared by component web): bad annotation: piceli.dev/wait is "0"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Make() error =\n%v\nwant it to contain\n%s", err, want)
		}
	}
	if strings.Contains(err.Error(), "ConfigMap") {
		t.Errorf("Make() error names the ConfigMap annotated \"false\", which is valid:\n%v", err)
	}
}

// Which objects are not waited for is approved with the plan: the hash
// covers it, the JSON form carries it, the text lists it with why, and a
// fresh plan that would wait differently makes the approved one stale.
func TestNotWaitedIsHashedShownAndStale(t *testing.T) {
	base := mustHash(t, samplePlan())
	p := samplePlan()
	p.Steps[1].NoWait = NoWaitAnnotated
	p.Steps[0].NoWait = NoWaitRelease
	if got := mustHash(t, p); got == base {
		t.Errorf("the hash did not change when steps became not waited for")
	}

	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"noWait":`); n != 2 || !strings.Contains(string(data), `"noWait":"annotation"`) || !strings.Contains(string(data), `"noWait":"release-default"`) {
		t.Errorf("the JSON plan carries %d noWait fields, want the two reasons:\n%s", n, data)
	}
	if plain, _ := json.Marshal(samplePlan()); strings.Contains(string(plain), "noWait") {
		t.Errorf("a plan that waits for everything mentions noWait in its JSON form:\n%s", plain)
	}

	var out bytes.Buffer
	p.Write(&out, pub.WriteOptions{})
	want := "\napplied without waiting for readiness (2):\n" +
		"  ConfigMap/shop/cfg: release.toml [release] wait = \"none\"\n" +
		"  Deployment/shop/web: annotated piceli.dev/wait: \"false\"\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("Write() =\n%s\nwant it to contain\n%s", out.String(), want)
	}
	var all bytes.Buffer
	samplePlan().Write(&all, pub.WriteOptions{})
	if strings.Contains(all.String(), "without waiting") {
		t.Errorf("Write() of a plan that waits for everything lists objects not waited for:\n%s", all.String())
	}

	stale := strings.Join(Stale(samplePlan(), p), "\n")
	for _, want := range []string{
		`ConfigMap/shop/cfg: the readiness policy changed ([release] wait in release.toml): the plan waits for it, now it does not wait for it (release.toml [release] wait = "none")`,
		"Deployment/shop/web: the readiness policy changed",
	} {
		if !strings.Contains(stale, want) {
			t.Errorf("Stale() =\n%s\nwant it to contain\n%s", stale, want)
		}
	}
}

func TestValidateCatchesStepsThatCannotSkipTheirWait(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Plan)
		want   string
	}{
		{"a delete not waited for", func(p *Plan) {
			p.Steps[1].Action, p.Steps[1].NoWait = Delete, NoWaitRelease
		}, "delete of a Deployment that is not waited for"},
		{"a CRD not waited for", func(p *Plan) {
			p.Steps[0].Ref.Kind, p.Steps[0].NoWait = "CustomResourceDefinition", NoWaitAnnotated
		}, "create of a CustomResourceDefinition that is not waited for"},
		{"an unknown reason", func(p *Plan) { p.Steps[0].NoWait = "because" }, `unknown reason not to wait "because"`},
	}
	for _, tt := range tests {
		p := samplePlan()
		tt.change(p)
		if err := Validate(p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.want)
		}
	}
}
