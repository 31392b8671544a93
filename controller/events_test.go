package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/api/v1alpha1"
)

// countingRecorder counts the events it is given.
type countingRecorder struct{ n int }

func (c *countingRecorder) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {
	c.n++
}

func (c *countingRecorder) AnnotatedEventf(runtime.Object, runtime.Object, map[string]string, string, string, string, string, ...any) {
	c.n++
}

// A waiting plan is announced once, not every pass; a deleted Release is
// forgotten, so memory follows the Releases there are, and one made again
// under the same name hears of its plan.
func TestOnceAnnouncesOnceAndForgetsDeletedReleases(t *testing.T) {
	rec := &countingRecorder{}
	sink := NewEventSink(rec)
	rel := &v1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "shop"}}
	sink.once(rel, "ApprovalRequired", "plan 1 waits")
	sink.once(rel, "ApprovalRequired", "plan 1 waits")
	if rec.n != 1 {
		t.Fatalf("%d events for one waiting plan, want 1", rec.n)
	}
	sink.forget(types.NamespacedName{Namespace: "shop", Name: "shop"})
	if len(sink.last) != 0 {
		t.Fatalf("a forgotten Release is still remembered: %v", sink.last)
	}
	sink.once(rel, "ApprovalRequired", "plan 1 waits")
	if rec.n != 2 {
		t.Fatalf("%d events after the Release was made again, want 2", rec.n)
	}
}
