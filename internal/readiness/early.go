package readiness

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxEarlyClaims bounds the claims one poll reads to explain a wait before
// it ends.
const maxEarlyClaims = 8

// claimKey names a claim.
type claimKey struct{ namespace, name string }

// claimSeen is what earlier polls found of a claim a target waits on.
type claimSeen struct {
	pending int  // polls that found it Pending
	bound   bool // found bound: not read again
}

// earlyClaim is one claim a poll reads for target: the target itself
// (self, live already read by the poll), else a claim read by name.
type earlyClaim struct {
	target int
	key    claimKey
	self   bool
	live   *unstructured.Unstructured
}

// explainEarly runs after a poll that leaves targets pending. It reads the
// claims those targets wait on (see claimsOf; at most maxEarlyClaims, each
// until it is found bound) and, from the second poll that finds a claim
// Pending, tells OnDiagnosis of each target whose known problems (see
// claimDiagnosis) appeared or changed. Nothing is read without
// OnDiagnosis.
func (w *waiter) explainEarly(ctx context.Context) {
	if w.opts.OnDiagnosis == nil {
		return
	}
	work := w.earlyClaims()
	parallel(w.opts.Parallel, indexes(len(work)), func(k int) { w.readClaim(ctx, &work[k]) })
	r := &claimReader{c: w.c}
	lines := make([]string, len(work))
	parallel(w.opts.Parallel, w.seeClaims(work), func(k int) {
		line, problem := r.explain(ctx, work[k].live, true)
		switch {
		case problem && work[k].self:
			lines[k] = line
		case problem:
			lines[k] = "claim " + work[k].key.name + ": " + line
		}
	})
	w.tellEarly(work, lines)
}

// earlyClaims lists the claims the pending targets wait on that are not
// known to be bound, in target order, at most maxEarlyClaims.
func (w *waiter) earlyClaims() []earlyClaim {
	var out []earlyClaim
	for _, i := range w.pending() {
		obj := w.live[i]
		if obj == nil {
			continue
		}
		for _, name := range claimsOf(obj) {
			k := claimKey{namespace: obj.GetNamespace(), name: name}
			if seen := w.claims[k]; (seen != nil && seen.bound) || len(out) == maxEarlyClaims {
				continue
			}
			c := earlyClaim{target: i, key: k}
			if kindKey(obj) == "PersistentVolumeClaim" {
				c.self, c.live = true, obj
			}
			out = append(out, c)
		}
	}
	return out
}

// readClaim reads c's claim unless the poll read it; a claim that cannot
// be read is left nil.
func (w *waiter) readClaim(ctx context.Context, c *earlyClaim) {
	if c.live != nil {
		return
	}
	if u, err := w.c.Resource(claimsResource).Namespace(c.key.namespace).Get(ctx, c.key.name, metav1.GetOptions{}); err == nil {
		c.live = u
	}
}

// seeClaims records what this poll found of each claim and returns the
// indexes of work to explain: claims Pending now and at an earlier poll.
func (w *waiter) seeClaims(work []earlyClaim) []int {
	var explain []int
	for k, c := range work {
		if c.live == nil {
			continue
		}
		seen := w.claims[c.key]
		if seen == nil {
			seen = &claimSeen{}
			w.claims[c.key] = seen
		}
		phase, _, _ := unstructured.NestedString(c.live.Object, "status", "phase")
		switch phase {
		case "Bound":
			seen.bound = true
		case "", "Pending":
			if seen.pending++; seen.pending > 1 {
				explain = append(explain, k)
			}
		}
	}
	return explain
}

// tellEarly gathers the lines of each target and calls OnDiagnosis for
// those whose lines changed since it last did.
func (w *waiter) tellEarly(work []earlyClaim, lines []string) {
	byTarget := map[int][]string{}
	for k, line := range lines {
		if line != "" {
			byTarget[work[k].target] = append(byTarget[work[k].target], line)
		}
	}
	for _, i := range w.pending() {
		got := byTarget[i]
		if slices.Equal(got, w.told[i]) {
			continue
		}
		w.told[i] = got
		if len(got) > 0 {
			o := w.objects[i]
			o.Diagnosis = got
			w.opts.OnDiagnosis(o)
		}
	}
}

// indexes returns 0..n-1.
func indexes(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}
