package apply

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/progress"
	"github.com/pynenc/piceli/internal/readiness"
)

func TestWaitingCountsInTheWavesKind(t *testing.T) {
	target := func(kind, name string) (readiness.Target, object.Ref) {
		t := readiness.Target{GVR: schema.GroupVersionResource{Resource: kind}, Kind: kind, Namespace: "shop", Name: name}
		return t, object.Ref{Kind: kind, Namespace: "shop", Name: name}
	}
	deployments := map[readiness.Target]object.Ref{}
	var pending []readiness.Target
	for i := range 100 {
		tg, ref := target("Deployment", fmt.Sprintf("d-%05d", i))
		deployments[tg] = ref
		if i >= 38 {
			pending = append(pending, tg)
		}
	}
	db, dbRef := target("StatefulSet", "db")
	web, webRef := target("Deployment", "web")
	mixed := map[readiness.Target]object.Ref{db: dbRef, web: webRef}

	tests := []struct {
		name    string
		total   int
		pending []readiness.Target
		refs    map[readiness.Target]object.Ref
		want    progress.Event
	}{
		{
			name: "a wave of one kind counts in that kind, with at most three names", total: 100, pending: pending, refs: deployments,
			want: progress.Event{Kind: progress.Waiting, Wave: 4, Pending: 62, Total: 100, What: "Deployments", Names: []string{"d-00038", "d-00039", "d-00040"}},
		},
		{
			name: "a wave of several kinds counts objects and names each with its kind", total: 2, pending: []readiness.Target{db}, refs: mixed,
			want: progress.Event{Kind: progress.Waiting, Wave: 4, Pending: 1, Total: 2, What: "objects", Names: []string{"StatefulSet db"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := waiting(4, tt.total, tt.pending, tt.refs)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("waiting() (-want +got):\n%s", diff)
			}
		})
	}
}
