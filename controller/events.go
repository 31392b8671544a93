package controller

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/pynenc/piceli/api/v1alpha1"
)

// EventSink records Kubernetes Events on Releases. Messages are built by
// the controller from plans, runs and errors, none of which carries a
// secret value. A nil *EventSink records nothing.
type EventSink struct {
	rec recorder.EventRecorder // nil records nothing

	mu   sync.Mutex
	last map[types.NamespacedName]string // the last "once" event per Release
}

// NewEventSink records through rec.
func NewEventSink(rec recorder.EventRecorder) *EventSink { return &EventSink{rec: rec} }

func (e *EventSink) normal(rel *v1alpha1.Release, reason, msg string) {
	e.record(rel, corev1.EventTypeNormal, reason, msg)
}

func (e *EventSink) warn(rel *v1alpha1.Release, reason, msg string) {
	e.record(rel, corev1.EventTypeWarning, reason, msg)
}

// once records a Normal event unless it is the one the Release got last
// from once: a plan waiting for approval is announced once, not every
// interval.
func (e *EventSink) once(rel *v1alpha1.Release, reason, msg string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	if e.last == nil {
		e.last = map[types.NamespacedName]string{}
	}
	key := types.NamespacedName{Namespace: rel.Namespace, Name: rel.Name}
	seen := e.last[key] == reason+msg
	e.last[key] = reason + msg
	e.mu.Unlock()
	if !seen {
		e.normal(rel, reason, msg)
	}
}

// forget drops what once remembers of a deleted Release.
func (e *EventSink) forget(key types.NamespacedName) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.last, key)
}

func (e *EventSink) record(rel *v1alpha1.Release, typ, reason, msg string) {
	if e == nil || e.rec == nil {
		return
	}
	e.rec.Eventf(rel, nil, typ, reason, reason, "%s", bound(msg, 1024))
}
