package release

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// ranRevision is what an environment's latest revision ran, confirmed
// live: its workloads and their containers' images.
type ranRevision struct {
	env       string
	namespace string // the environment's target namespace
	number    int
	plan      string
	workloads []ranWorkload
	confirmed LiveCheck
}

// ranWorkload is one object of a revision that has pods: a workload with
// a pod template, or a Pod.
type ranWorkload struct {
	ref        object.Ref
	apiVersion string
	resource   string
	containers []containerImage
}

// containerImage is one container of a pod spec and its image; an init
// container's name is written "init:NAME".
type containerImage struct {
	name  string
	image string
}

// ran reads the release's latest revision (a release with local state
// is refused one without any before its cluster is contacted), checks it
// (its seal, its plan) and confirms its images against the live objects in the target:
// every workload it declares, and those workloads' pods. Nothing is
// written to the cluster.
func (r *Release) ran(ctx context.Context) (*ranRevision, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	var c *kube.Client
	if r.sharesState() { // its history is in its cluster: pull it first
		var err error
		if c, err = r.connectTarget(ctx); err != nil {
			return nil, err
		}
		if err := r.pullState(ctx, c); err != nil {
			return nil, err
		}
	}
	rev, err := r.latestGood()
	if err != nil {
		return nil, err
	}
	if c == nil {
		if c, err = r.connectTarget(ctx); err != nil {
			return nil, err
		}
	}
	ran := &ranRevision{env: r.spec.Environment, namespace: r.spec.Target.Namespace, number: rev.Number, plan: rev.Plan, workloads: workloadsOf(rev)}
	if len(ran.workloads) == 0 {
		return nil, refusef("environment %s: revision %d declares no workload with containers, so it ran no image to promote", ran.env, rev.Number)
	}
	if err := ran.confirm(ctx, c); err != nil {
		return nil, err
	}
	return ran, nil
}

// latestGood is the release's latest revision, refused when there is none,
// when it is damaged, or when the checks of its run failed: promote takes
// only what an environment ran successfully.
func (r *Release) latestGood() (*history.Revision, error) {
	env := r.spec.Environment
	sums, err := history.Summaries(r.StateDir())
	if err != nil {
		return nil, err
	}
	if len(sums) == 0 {
		return nil, refusef("environment %s has no revision in %s: it never finished a run, so it ran nothing to promote (apply it first: plan and apply with --env %s)", env, r.StateDir(), env)
	}
	last := sums[len(sums)-1]
	if failed := failedChecks(last.Checks); len(failed) > 0 {
		return nil, refusef("environment %s: the checks of revision %d failed (%s), so it is not promoted; fix it and apply it again", env, last.Number, strings.Join(failed, ", "))
	}
	key, err := planner.ReadKey(r.StateDir())
	if err != nil {
		return nil, err
	}
	rev, err := trustedRevision(r.StateDir(), key, last.Number)
	if err != nil {
		return nil, refusef("environment %s: %w", env, err)
	}
	return rev, nil
}

// failedChecks names the checks of a revision that failed.
func failedChecks(c *history.Checks) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, res := range c.Results {
		if !res.Passed {
			out = append(out, res.Name)
		}
	}
	return out
}

// workloadsOf lists the objects of rev with pods, in revision order.
func workloadsOf(rev *history.Revision) []ranWorkload {
	var out []ranWorkload
	for _, o := range rev.Objects {
		cs := containersOf(&unstructured.Unstructured{Object: o.Manifest})
		if len(cs) > 0 {
			out = append(out, ranWorkload{ref: o.Ref, apiVersion: o.APIVersion, resource: o.Resource, containers: cs})
		}
	}
	return out
}

// containersOf lists the init containers and containers of u's pods, or
// nothing when u has none (neither a Pod nor a workload with a template).
func containersOf(u *unstructured.Unstructured) []containerImage {
	path := podSpec(u)
	if path == nil {
		return nil
	}
	var out []containerImage
	for _, list := range []struct{ field, prefix string }{{"initContainers", "init:"}, {"containers", ""}} {
		items, _, _ := unstructured.NestedSlice(u.Object, append(path, list.field)...)
		for _, it := range items {
			c, _ := it.(map[string]any)
			name, _ := c["name"].(string)
			image, _ := c["image"].(string)
			out = append(out, containerImage{name: list.prefix + name, image: image})
		}
	}
	return out
}

// podSpec is where u keeps the spec of its pods, or nil.
func podSpec(u *unstructured.Unstructured) []string {
	if u.GroupVersionKind().Group == "" && u.GetKind() == "Pod" {
		return []string{"spec"}
	}
	if p := object.PodTemplatePath(u); p != nil {
		return append(p, "spec")
	}
	return nil
}

// confirm reads every workload of the revision live, and its pods, and
// refuses, listing each, any that is gone or runs another image than the
// revision applied.
func (ran *ranRevision) confirm(ctx context.Context, c *kube.Client) error {
	var disagree []string
	lives := make([]*unstructured.Unstructured, len(ran.workloads))
	for i, w := range ran.workloads {
		u, err := c.Dynamic.Resource(gvr(w.apiVersion, w.resource)).Namespace(w.ref.Namespace).Get(ctx, w.ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			disagree = append(disagree, w.ref.String()+": deleted since")
		case err != nil:
			return fmt.Errorf("read %s: %w", w.ref, err)
		default:
			lives[i] = u
			disagree = append(disagree, differs(w.ref.String(), w.containers, containersOf(u))...)
		}
	}
	if len(disagree) > 0 {
		return refusef("environment %s: its live objects disagree with revision %d (plan %s), its last finished run: someone else changed them, or a later run did not finish; promote takes only what the environment verifiably runs:\n  %s",
			ran.env, ran.number, plan.ShortHash(ran.plan), strings.Join(disagree, "\n  "))
	}
	ran.confirmed.Workloads = len(ran.workloads)
	for i, w := range ran.workloads {
		n, got, err := w.livePods(ctx, c, lives[i])
		if err != nil {
			return err
		}
		ran.confirmed.Pods += n
		disagree = append(disagree, got...)
	}
	if len(disagree) > 0 {
		return refusef("environment %s: pods disagree with revision %d (plan %s): a rollout has not finished, or someone else changed them; promote once they run the revision's images:\n  %s",
			ran.env, ran.number, plan.ShortHash(ran.plan), strings.Join(disagree, "\n  "))
	}
	return nil
}

// livePods reads the pods the live workload u selects (a Pod is its own
// pod, compared already; a CronJob's pods come and go with its schedule)
// and returns how many run the revision's images and how the others
// differ. Terminating pods are left out.
func (w ranWorkload) livePods(ctx context.Context, c *kube.Client, u *unstructured.Unstructured) (int, []string, error) {
	if w.ref.Kind == "Pod" || w.ref.Kind == "CronJob" {
		return 0, nil, nil
	}
	sel, ok, err := selectorOf(u)
	if err != nil || !ok {
		return 0, nil, err
	}
	pods, err := c.Clientset.CoreV1().Pods(w.ref.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return 0, nil, fmt.Errorf("list the pods of %s: %w", w.ref, err)
	}
	n := 0
	var disagree []string
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		d := differs(fmt.Sprintf("pod %s/%s of %s", p.Namespace, p.Name, w.ref), w.containers, podContainers(p))
		if len(d) == 0 {
			n++
		}
		disagree = append(disagree, d...)
	}
	return n, disagree, nil
}

// selectorOf is the label selector of a live workload's pods, as a string;
// false when it has none.
func selectorOf(u *unstructured.Unstructured) (string, bool, error) {
	m, ok, _ := unstructured.NestedMap(u.Object, "spec", "selector")
	if !ok {
		return "", false, nil
	}
	var ls metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ls); err != nil {
		return "", false, fmt.Errorf("the selector of %s: %w", object.RefOf(u), err)
	}
	s, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		return "", false, fmt.Errorf("the selector of %s: %w", object.RefOf(u), err)
	}
	return s.String(), !s.Empty(), nil
}

// podContainers lists a pod's containers as containersOf does.
func podContainers(p *corev1.Pod) []containerImage {
	var out []containerImage
	for _, c := range p.Spec.InitContainers {
		out = append(out, containerImage{name: "init:" + c.Name, image: c.Image})
	}
	for _, c := range p.Spec.Containers {
		out = append(out, containerImage{name: c.Name, image: c.Image})
	}
	return out
}

// differs says, per container of want, how got differs: missing, or
// another image.
func differs(what string, want, got []containerImage) []string {
	var out []string
	for _, w := range want {
		i := slices.IndexFunc(got, func(g containerImage) bool { return g.name == w.name })
		switch {
		case i < 0:
			out = append(out, fmt.Sprintf("%s: container %q is gone", what, w.name))
		case got[i].image != w.image:
			out = append(out, fmt.Sprintf("%s: container %q runs %q, the revision ran %q", what, w.name, got[i].image, w.image))
		}
	}
	return out
}
