package bench

import (
	"context"

	"errors"
	"fmt"
	"github.com/go-logr/logr"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/publish"
	"github.com/pynenc/piceli/refusal"
)

// The stop scenario (issue 35, acceptance 4): one Release of many
// ConfigMaps applied by the controller binary, `controller stop` asked in
// the middle of its apply, then the next plan approved by hash and
// applied until the Release is Ready.
const (
	stopNamespace = "piceli-stop" // the Release's namespace, its target too
	// stopInterval is the Release's interval: after a stopped run the
	// fresh plan the next approval needs is made by the next pass.
	stopInterval = 15 * time.Second
	stopTimeout  = 30 * time.Minute
)

// stopFigures are what the stop scenario measured.
type stopFigures struct {
	Objects int
	// Applying: from creating the Release until it shows Applying.
	Applying time.Duration
	// AtRequest: the ConfigMaps that existed when the stop was asked
	// (counted just before the request); AtStop: when the Release showed
	// Stalled, reason Stopped.
	AtRequest, AtStop int
	// Stopped: from the accepted stop request until the Release showed
	// Stalled with status.stopped.
	Stopped time.Duration
	// FirstRun: from Applying until Stalled/Stopped.
	FirstRun time.Duration
	// FreshPlan: from Stalled/Stopped until a plan other than the stopped
	// one was shown (the next pass, at most one interval later).
	FreshPlan time.Duration
	// Ready: from the approval by hash until the Release was Ready.
	Ready time.Duration
	// Total: from creating the Release until it was Ready, the waits for
	// the stop, the fresh plan and the approval included.
	Total time.Duration
	// LoadStart and LoadEnd are the machine's load averages (1, 5 and 15
	// minutes) when the scenario began and ended.
	LoadStart, LoadEnd string
}

// Applied is the time the controller spent applying: the stopped run and
// the run of the next approved plan.
func (f stopFigures) Applied() time.Duration { return f.FirstRun + f.Ready }

// stopContent is release app in ns with n ConfigMaps.
func stopContent(ns string, n int) *publish.Content {
	c := &publish.Content{Metadata: publish.Metadata{Schema: publish.MetadataSchema, Release: "app", Namespace: ns, Wait: "ready"}}
	for i := range n {
		name := fmt.Sprintf("cm-%05d", i)
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"data": map[string]any{"index": strconv.Itoa(i)}}}
		u.SetName(name)
		u.SetNamespace(ns)
		c.Manifests = append(c.Manifests, u)
		c.Metadata.Objects = append(c.Metadata.Objects, publish.ObjectInfo{
			File: fmt.Sprintf("%03d-configmap-%s-%s.yaml", i, ns, name), Ref: "ConfigMap/" + ns + "/" + name, Origin: "bench",
		})
	}
	return c
}

// controllerStop runs the stop scenario on b's sandbox.
func (b *bench) controllerStop(ctx context.Context) (f stopFigures, err error) {
	f = stopFigures{Objects: b.cfg.StopObjects, LoadStart: loadAverage()}
	defer func() { f.LoadEnd = loadAverage() }()
	// controller.Stop connects with controller-runtime's client, whose
	// logger is otherwise unset and says so with a stack trace.
	ctrllog.SetLogger(logr.Discard())
	r, closeRegistry, err := b.newCtlRun("stop-")
	if err != nil {
		return f, err
	}
	defer closeRegistry()
	b.logf("stop scenario: one Release of %d ConfigMaps; the CRD, namespace, RoleBinding and artifact", f.Objects)
	if err := r.installBase(ctx); err != nil {
		return f, err
	}
	if err := r.prepareRelease(ctx, stopNamespace, stopContent(stopNamespace, f.Objects)); err != nil {
		return f, err
	}
	if err := r.start(ctx); err != nil {
		return f, err
	}
	defer r.stop()
	if err := r.stopAndApprove(ctx, &f); err != nil {
		return f, r.withLog(err)
	}
	return f, nil
}

// stopAndApprove creates the Release, approved by its policy, stops its
// run once half its ConfigMaps exist, approves the fresh plan by hash and
// waits until the Release is Ready.
func (r *ctlRun) stopAndApprove(ctx context.Context, f *stopFigures) error {
	key := types.NamespacedName{Namespace: stopNamespace, Name: "app"}
	rel := &v1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}, Spec: v1alpha1.ReleaseSpec{
		Source:   v1alpha1.Source{OCI: &v1alpha1.OCISource{URL: "oci://" + r.reg + "/" + stopNamespace, Tag: "v1", Insecure: true}},
		Policy:   &v1alpha1.Policy{Actions: []string{"create", "update"}},
		Interval: metav1.Duration{Duration: stopInterval},
	}}
	created := time.Now()
	if err := r.c.Create(ctx, rel); err != nil {
		return err
	}
	if _, err := r.waitRelease(ctx, key, "the Release is Applying", func(rel *v1alpha1.Release) bool {
		return rel.Status.State == v1alpha1.StateApplying
	}); err != nil {
		return err
	}
	applying := time.Now()
	f.Applying = applying.Sub(created)
	r.b.logf("stop scenario: Applying after %s; stopping once %d ConfigMaps exist", f.Applying.Round(time.Millisecond), f.Objects/2)

	// The stop, asked in the middle of the apply.
	target := controller.Target{Kubeconfig: r.b.t.Kubeconfig, Context: r.b.t.Context}
	var req *controller.StopRequest
	err := poll(ctx, stopTimeout, "the stop is accepted in the middle of the apply", func() (bool, error) {
		n, err := r.configMaps(ctx)
		if err != nil || n < f.Objects/2 {
			return false, err
		}
		if n >= f.Objects {
			return false, fmt.Errorf("all %d ConfigMaps were written before the stop was accepted", n)
		}
		f.AtRequest = n
		req, err = controller.Stop(ctx, target, key)
		if refusal.Is(err) {
			return false, nil // the run has not taken the Lease yet
		}
		return err == nil, err
	})
	if err != nil {
		return err
	}
	requested := time.Now()
	got, err := r.waitRelease(ctx, key, "the run ends stopped", func(rel *v1alpha1.Release) bool {
		return rel.Status.State == v1alpha1.StateStalled && rel.Status.Stopped != nil
	})
	if err != nil {
		return err
	}
	stalled := time.Now()
	f.Stopped, f.FirstRun = stalled.Sub(requested), stalled.Sub(applying)
	if got.Status.Stopped.Run != req.Run {
		return fmt.Errorf("status.stopped names run %s; the stop was asked of %s", got.Status.Stopped.Run, req.Run)
	}
	if f.AtStop, err = r.configMaps(ctx); err != nil {
		return err
	}
	if f.AtStop >= f.Objects {
		return fmt.Errorf("all %d ConfigMaps exist after the stop: it did not end the run early", f.AtStop)
	}
	r.b.logf("stop scenario: Stalled/Stopped %s after the request, %d of %d ConfigMaps written", f.Stopped.Round(time.Millisecond), f.AtStop, f.Objects)

	// The next plan, approved by hash.
	stoppedPlan := got.Status.Stopped.Plan
	got, err = r.waitRelease(ctx, key, "a plan other than the stopped one is shown", func(rel *v1alpha1.Release) bool {
		return rel.Status.Plan != nil && rel.Status.Plan.Hash != stoppedPlan && rel.Status.Stopped != nil
	})
	if err != nil {
		return err
	}
	approved := time.Now()
	f.FreshPlan = approved.Sub(stalled)
	if _, err := controller.Approve(ctx, r.c, key, got.Status.Plan.Hash); err != nil {
		return err
	}
	got, err = r.waitRelease(ctx, key, "the approved plan runs and the Release is Ready", func(rel *v1alpha1.Release) bool {
		return rel.Status.State == v1alpha1.StateReady && rel.Status.AppliedRevision == rel.Status.SourceRevision
	})
	if err != nil {
		return err
	}
	ready := time.Now()
	f.Ready, f.Total = ready.Sub(approved), ready.Sub(created)
	if got.Status.Stopped != nil {
		return fmt.Errorf("status.stopped %+v after the next run", got.Status.Stopped)
	}
	if n, err := r.configMaps(ctx); err != nil || n != f.Objects {
		return errors.Join(err, fmt.Errorf("%d ConfigMaps after the Release was Ready, want %d", n, f.Objects))
	}
	r.b.logf("stop scenario: Ready %s after the approval", f.Ready.Round(time.Millisecond))
	return nil
}

// waitRelease polls the Release key until ok holds and returns it; a
// Release Stalled for a reason other than a stop fails the wait.
func (r *ctlRun) waitRelease(ctx context.Context, key types.NamespacedName, what string, ok func(*v1alpha1.Release) bool) (*v1alpha1.Release, error) {
	var rel v1alpha1.Release
	err := poll(ctx, stopTimeout, what, func() (bool, error) {
		if err := r.c.Get(ctx, key, &rel); err != nil {
			return false, err
		}
		if ok(&rel) {
			return true, nil
		}
		if rel.Status.State == v1alpha1.StateStalled && rel.Status.Stopped == nil {
			return false, fmt.Errorf("the Release is Stalled: %s", stalledMessage(&rel))
		}
		return false, nil
	})
	return &rel, err
}

// stalledMessage is the message of the Release's Stalled condition.
func stalledMessage(rel *v1alpha1.Release) string {
	for _, c := range rel.Status.Conditions {
		if c.Type == v1alpha1.ConditionStalled {
			return c.Reason + ": " + c.Message
		}
	}
	return "(no Stalled condition)"
}

var schemaConfigMapList = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMapList"}

// configMaps counts the scenario's ConfigMaps in the cluster.
func (r *ctlRun) configMaps(ctx context.Context) (int, error) {
	var list metav1.PartialObjectMetadataList
	list.SetGroupVersionKind(schemaConfigMapList)
	if err := r.c.List(ctx, &list, client.InNamespace(stopNamespace)); err != nil {
		return 0, err
	}
	n := 0
	for _, o := range list.Items {
		if strings.HasPrefix(o.Name, "cm-") {
			n++
		}
	}
	return n, nil
}

// stopHeading starts the stop scenario's section of the results.
const stopHeading = "## A stopped run and the next approved plan (issue 35)"

// stopSection is the results of the stop scenario.
func stopSection(f stopFigures) string {
	var s strings.Builder
	fmt.Fprintf(&s, "\n%s\n\n", stopHeading)
	fmt.Fprintf(&s, `The piceli-controller binary, as a process of its own on the same sandbox, applies one Release
of %d ConfigMaps approved by its policy, from an OCI registry in the benchmark's process on
127.0.0.1. Once half the ConfigMaps exist, the benchmark asks `+"`controller stop`"+` (the library's
`+"`controller.Stop`"+`, as the command does); the run ends between its writes and the Release shows
`+"`Stalled`"+`, reason `+"`Stopped`"+`. The controller's next pass (the Release's interval is %s) shows
a fresh plan of the rest; the benchmark approves it by its hash (`+"`controller.Approve`"+`) and waits
until the Release is Ready with every ConfigMap.

The benchmark polls every 500 ms, so each time below may be up to half a second long.

| figure | measured |
| --- | --- |
`, f.Objects, stopInterval)
	fmt.Fprintf(&s, "| from creating the Release until it shows Applying | %s |\n", secs(f.Applying))
	fmt.Fprintf(&s, "| ConfigMaps that existed when the stop was asked | %d of %d |\n", f.AtRequest, f.Objects)
	fmt.Fprintf(&s, "| from the stop request until the Release showed Stalled, reason Stopped | %s |\n", secs(f.Stopped))
	fmt.Fprintf(&s, "| ConfigMaps that existed when it showed Stopped | %d of %d |\n", f.AtStop, f.Objects)
	fmt.Fprintf(&s, "| from Stopped until a fresh plan was shown (the next pass) | %s |\n", secs(f.FreshPlan))
	fmt.Fprintf(&s, "| from approving that plan by hash until the Release was Ready | %s |\n", secs(f.Ready))
	fmt.Fprintf(&s, "| applying all %d ConfigMaps: the stopped run (Applying to Stopped) plus the next run (approval to Ready) | %s |\n", f.Objects, secs(f.Applied()))
	fmt.Fprintf(&s, "| from creating the Release until it was Ready, the stop and the waits included | %s |\n", secs(f.Total))
	fmt.Fprintf(&s, "\nThe machine's load average (1, 5, 15 minutes): %s when the scenario began, %s when it ended.\n", f.LoadStart, f.LoadEnd)
	return s.String()
}

// secs formats d in seconds with one decimal.
func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
