package release

import (
	"maps"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

const (
	digestA = "example.com/web@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	digestB = "example.com/web@sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	sidecar = "example.com/proxy@sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
)

// deploymentIn is a Deployment in ns whose pods run the given containers,
// name to image; an init container's name starts "init:".
func deploymentIn(ns, name string, containers ...[2]string) object.Declared {
	var cs, inits []any
	for _, c := range containers {
		if n, ok := strings.CutPrefix(c[0], "init:"); ok {
			inits = append(inits, map[string]any{"name": n, "image": c[1]})
			continue
		}
		cs = append(cs, map[string]any{"name": c[0], "image": c[1]})
	}
	pod := map[string]any{"containers": cs}
	if inits != nil {
		pod["initContainers"] = inits
	}
	return object.Declared{Origin: "test", Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{"replicas": int64(3), "template": map[string]any{"spec": pod}}}}}
}

// ranIn is a revision of environment staging in ns that ran objs.
func ranIn(ns string, objs ...object.Declared) *ranRevision {
	ran := &ranRevision{env: "staging", namespace: ns, number: 4, plan: "sha256:" + strings.Repeat("1", 64)}
	for _, o := range objs {
		ran.workloads = append(ran.workloads, ranWorkload{ref: object.RefOf(o.Object), apiVersion: "apps/v1", resource: "deployments", containers: containersOf(o.Object)})
	}
	return ran
}

// The keys promote sets are those whose reference the destination
// renders where the source ran another digest; containers already alike
// set nothing, and init containers count.
func TestPromoteSetsTheKeysOfDifferingContainers(t *testing.T) {
	ran := ranIn("st", deploymentIn("st", "web", [2]string{"web", digestA}, [2]string{"init:proxy", sidecar}))
	prod := []object.Declared{deploymentIn("pr", "web", [2]string{"web", digestB}, [2]string{"init:proxy", sidecar}), deploymentIn("pr", "other", [2]string{"web", digestB})}
	images := map[string]string{"web": digestB, "proxy": sidecar}
	m := matchRan(ran, prod, "pr")
	if len(m.pairs) != 2 {
		t.Fatalf("matched %d containers, want web's two (other is not staging's): %+v", len(m.pairs), m.pairs)
	}
	keys, err := m.keys(images, "staging", "prod")
	if err != nil || !maps.Equal(keys, map[string]string{"web": digestA}) {
		t.Fatalf("keys = %v, %v; want web set to A alone", keys, err)
	}
	again := []object.Declared{deploymentIn("pr", "web", [2]string{"web", digestA}, [2]string{"init:proxy", sidecar})}
	cs, err := m.verify(again, "prod", "staging", 4)
	if err != nil || len(cs) != 2 || cs[0].Image != sidecar || cs[1].Image != digestA || cs[1].Ref.Namespace != "pr" {
		t.Fatalf("verify = %+v, %v; want both containers with staging's images, in prod's namespace", cs, err)
	}
}

// Every way promote cannot keep its promise is refused, naming the object
// and container.
func TestPromoteRefusesWhatItCannotPromote(t *testing.T) {
	for name, tt := range map[string]struct {
		ran    *ranRevision
		prod   []object.Declared
		images map[string]string
		want   string
	}{
		"no container in common": {ranIn("st", deploymentIn("st", "api", [2]string{"api", digestA})),
			[]object.Declared{deploymentIn("pr", "web", [2]string{"web", digestB})}, map[string]string{"web": digestB}, "nothing to promote"},
		"an image staging ran by tag": {ranIn("st", deploymentIn("st", "web", [2]string{"web", "example.com/web:1"})),
			[]object.Declared{deploymentIn("pr", "web", [2]string{"web", digestB})}, map[string]string{"web": digestB}, `ran "example.com/web:1", which is not pinned by digest`},
		"an image prod does not take from [images]": {ranIn("st", deploymentIn("st", "web", [2]string{"web", digestA})),
			[]object.Declared{deploymentIn("pr", "web", [2]string{"web", digestB})}, map[string]string{"other": sidecar}, "which no [images] key gives"},
		"one key, two digests": {ranIn("st", deploymentIn("st", "web", [2]string{"web", digestA}), deploymentIn("st", "api", [2]string{"api", sidecar})),
			[]object.Declared{deploymentIn("pr", "web", [2]string{"web", digestB}), deploymentIn("pr", "api", [2]string{"api", digestB})}, map[string]string{"web": digestB}, "[images] web of environment prod: environment staging ran both"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := matchRan(tt.ran, tt.prod, "pr").keys(tt.images, "staging", "prod")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("keys: %v, want an error saying %q", err, tt.want)
			}
		})
	}
	t.Run("a composition that does not render the promoted key", func(t *testing.T) {
		m := matchRan(ranIn("st", deploymentIn("st", "web", [2]string{"web", digestA})), []object.Declared{deploymentIn("pr", "web", [2]string{"web", digestB})}, "pr")
		_, err := m.verify([]object.Declared{deploymentIn("pr", "web", [2]string{"web", digestB})}, "prod", "staging", 4)
		if err == nil || !strings.Contains(err.Error(), `renders "`+digestB+`", not the "`+digestA+`" environment staging revision 4 ran`) {
			t.Errorf("verify: %v, want a refusal naming both images", err)
		}
	})
}

// differs names each container gone or running another image.
func TestPromoteDiffersNamesEachContainer(t *testing.T) {
	want := []containerImage{{"web", digestA}, {"init:proxy", sidecar}}
	got := differs("Deployment/st/web", want, []containerImage{{"web", digestB}})
	if len(got) != 2 || !strings.Contains(got[0], `container "web" runs "`+digestB+`", the revision ran "`+digestA+`"`) || !strings.Contains(got[1], `container "init:proxy" is gone`) {
		t.Errorf("differs = %q", got)
	}
	if d := differs("x", want, want); len(d) != 0 {
		t.Errorf("alike containers differ: %q", d)
	}
}
