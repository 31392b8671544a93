package acceptance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/faultproxy"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/release"
)

// afterChecks are the same for every scenario, run when it ends (failed
// or not):
//   - every subprocess it started has ended;
//   - the cluster is in the scenario's terminal state: the plan's desired
//     state (a fresh diff has only no-op steps), compensated (nothing the
//     plan creates exists) or, for a refused scenario, what it was before,
//     with the state directory unchanged too;
//   - every run's journal reads clean (no corruption, no torn tail, no
//     step in doubt) and the latest ended as the terminal state says;
//   - no object was written twice: no write of one object, of one method,
//     landed more than once (the proxy's log: received and answered with
//     success by the API server);
//   - no encoding of the canary is in any output or in any file the
//     release wrote;
//   - every proxy fault kind the scenario claims to cover was injected.
//
// The proxy is closed and its listener proven gone by newEnv's cleanup,
// which runs after these.
func (e *env) afterChecks() {
	t := e.t
	t.Helper()
	e.checkProcesses()
	e.proxy.Clear()
	switch e.want {
	case reachedDesired:
		e.checkDesired()
		e.checkJournals(journal.StatusFinished)
	case undone:
		e.checkUndone()
		e.checkJournals(journal.StatusCompensated)
	case untouched:
		e.checkUntouched()
	default:
		t.Errorf("scenario declares no terminal state")
	}
	e.checkWrittenOnce()
	e.checkCanary()
	e.checkCovered()
}

// checkCovered fails when the proxy never injected a fault kind the
// scenario claims to cover, so the coverage test counts only real use.
func (e *env) checkCovered() {
	for _, c := range e.covers {
		kind, ok := strings.CutPrefix(c, "fault ")
		if !ok {
			continue
		}
		if !slices.ContainsFunc(e.proxy.Requests(), func(r faultproxy.Request) bool { return string(r.Fault) == kind }) {
			e.t.Errorf("the scenario claims to cover fault %s, but the proxy never injected it", kind)
		}
	}
}

// checkProcesses fails for a subprocess still running, and kills it.
func (e *env) checkProcesses() {
	for _, p := range e.procs {
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
			e.t.Errorf("process left: piceli %s (pid %d) still ran when the scenario ended", strings.Join(p.cmd.Args[1:], " "), p.cmd.Process.Pid)
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.cmd.Process.Pid)); err == nil && p.cmd.ProcessState == nil {
			e.t.Errorf("process left: pid %d was not reaped", p.cmd.Process.Pid)
		}
	}
}

// checkDesired diffs the release afresh: every step must be a no-op.
func (e *env) checkDesired() {
	t := e.t
	p, err := e.lib().Diff(ctx(t), release.PlanOptions{})
	if err != nil {
		t.Errorf("after-check: fresh diff: %v", err)
		return
	}
	for _, s := range p.Steps {
		if s.Action != plan.NoOp {
			t.Errorf("after-check: cluster differs from the plan's desired state: %s is %s, want no-op", s.Ref, s.Action)
		}
	}
}

// checkUndone diffs the release afresh: every step must create its object
// again, since compensation removed what the run created.
func (e *env) checkUndone() {
	t := e.t
	p, err := e.lib().Diff(ctx(t), release.PlanOptions{})
	if err != nil {
		t.Errorf("after-check: fresh diff: %v", err)
		return
	}
	for _, s := range p.Steps {
		if s.Action != plan.Create {
			t.Errorf("after-check: compensation left %s in the cluster (a fresh plan would %s it)", s.Ref, s.Action)
		}
	}
}

// checkJournals replays every run's journal and checks the latest ended
// as want.
func (e *env) checkJournals(want journal.RunStatus) {
	t := e.t
	runs, err := apply.Runs(e.stateDir)
	if err != nil || len(runs) == 0 {
		t.Errorf("after-check: runs of %s: %v, %d runs; want at least one", e.stateDir, err, len(runs))
		return
	}
	for _, run := range runs {
		st, tail, err := apply.Inspect(e.stateDir, run)
		switch {
		case err != nil:
			t.Errorf("after-check: journal of run %s does not read clean: %v", run, err)
		case tail != nil:
			t.Errorf("after-check: journal of run %s has a torn tail: %s", run, tail)
		case len(st.InDoubt()) > 0:
			t.Errorf("after-check: run %s leaves steps %v in doubt", run, st.InDoubt())
		}
	}
	st := e.status()
	if st.Run == nil || string(st.Run.Phase) != string(want) || st.Run.TornTail != "" || st.Run.InDoubt != 0 {
		t.Errorf("after-check: release run = %+v, want the latest run %s, clean", st.Run, want)
	}
	if want == journal.StatusFinished && (st.Latest == nil || st.Latest.Run != st.Run.ID) {
		t.Errorf("after-check: latest revision %+v, want one from run %s", st.Latest, st.Run.ID)
	}
}

// checkUntouched compares the cluster and the state directory with the
// snapshot the scenario took before its refused commands.
func (e *env) checkUntouched() {
	t := e.t
	if e.before == nil {
		t.Errorf("after-check: a refused scenario took no snapshot before its commands")
		return
	}
	now := e.snapshot()
	for _, d := range diffMaps(e.before.cluster, now.cluster) {
		t.Errorf("after-check: the cluster changed: %s", d)
	}
	for _, d := range diffMaps(e.before.state, now.state) {
		t.Errorf("after-check: the state directory changed: %s", d)
	}
	for _, r := range e.proxy.Requests()[e.mark:] {
		if isWrite(r) {
			t.Errorf("after-check: a refused command wrote to the cluster: %s %s", r.Method, r.Path)
		}
	}
}

// checkWrittenOnce fails for an object a write of one method landed on
// more than once since the mark: the API server received it and answered
// it with success. A write the server received but never answered (its
// client gave up on it mid-way, as when a sibling write's failure cancels
// the wave) may not have landed; resume settles it by reading the cluster
// and writes it again only when it did not. Leases are the run's lock,
// renewed by design.
func (e *env) checkWrittenOnce() {
	n, unanswered := map[string]int{}, map[string]int{}
	for _, r := range e.proxy.Requests()[e.mark:] {
		if !isWrite(r) || !strings.Contains(r.Path, "/namespaces/"+e.ns+"/") || strings.Contains(r.Path, "/leases") {
			continue
		}
		switch w := r.Method + " " + r.Path; {
		case r.Code >= 200 && r.Code < 300:
			n[w]++
		case r.Code == 0:
			unanswered[w]++
		}
	}
	for _, w := range slices.Sorted(maps.Keys(n)) {
		if n[w] > 1 {
			e.t.Errorf("after-check: written twice: %s landed %d times (and %d more were never answered)", w, n[w], unanswered[w])
		}
	}
}

// nextPhase checks that no object was written twice since the mark, and
// moves the mark: a scenario that applies several revisions writes each
// object once per revision.
func (e *env) nextPhase() {
	e.t.Helper()
	e.checkWrittenOnce()
	e.markWrites()
}

// isWrite reports whether the proxy forwarded r as a write that could
// change the cluster.
func isWrite(r faultproxy.Request) bool {
	return r.Forwarded && !r.DryRun && r.Method != http.MethodGet && r.Method != http.MethodHead
}

// checkCanary searches the scenario's outputs and every file of its
// release directory (its manifests aside, which hold the value) and of
// its subprocesses' TMPDIR.
func (e *env) checkCanary() {
	for _, o := range e.out {
		if l := leaks([]byte(o.text), e.canary); len(l) > 0 {
			e.t.Errorf("canary leaked: the output of %s holds the secret value (%s)", o.name, strings.Join(l, ", "))
		}
	}
	for _, dir := range append([]string{e.dir}, e.copies...) {
		sweepOrFail(e.t, dir, e.canary, filepath.Join(dir, "manifests"))
	}
	sweepOrFail(e.t, e.tmp, e.canary)
}

// snapshot is what a refused scenario must leave as it was.
type snapshot struct {
	cluster map[string]string // kind/name → uid and resourceVersion, in the namespace
	state   map[string]string // state directory file → digest of its content
}

// snapshot reads the scenario's namespace (directly, not through the
// proxy) and state directory.
func (e *env) snapshot() *snapshot {
	e.t.Helper()
	return &snapshot{cluster: e.clusterObjects(), state: dirDigests(e.t, e.stateDir)}
}

// snapshotKinds are the kinds a scenario's commands could write.
var snapshotKinds = []schema.GroupVersionResource{
	{Version: "v1", Resource: "configmaps"},
	{Version: "v1", Resource: "secrets"},
	{Version: "v1", Resource: "services"},
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
}

func (e *env) clusterObjects() map[string]string {
	e.t.Helper()
	return objectsIn(e.t, e.sb, e.ns)
}

// objectsIn maps the objects of snapshotKinds in namespace ns of sb to
// their UID and resourceVersion.
func objectsIn(t *testing.T, sb *sandboxtest.Sandbox, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, gvr := range snapshotKinds {
		list, err := sb.Dynamic.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list %s in %s: %v", gvr.Resource, ns, err)
		}
		for _, o := range list.Items {
			if gvr.Resource == "configmaps" && o.GetName() == "kube-root-ca.crt" {
				continue // the controller-manager puts it in every new namespace
			}
			out[gvr.Resource+"/"+o.GetName()] = string(o.GetUID()) + "@" + o.GetResourceVersion()
		}
	}
	return out
}

// dirDigests maps every file under dir to a digest of its content; a
// missing dir is empty. The empty lock file is left out: taking the file
// lock creates it, and it holds nothing.
func dirDigests(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil || d.IsDir() || p == filepath.Join(dir, "lock") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(sum[:8])
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return out
}

// diffMaps describes how after differs from before.
func diffMaps(before, after map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if v, ok := after[k]; !ok {
			out = append(out, k+" is gone")
		} else if v != before[k] {
			out = append(out, k+" changed")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[k]; !ok {
			out = append(out, k+" appeared")
		}
	}
	return out
}

// closeProxy closes p and proves its listener gone: nothing of this
// process listens on its address and a dial is refused.
func closeProxy(t *testing.T, p *faultproxy.Proxy) {
	t.Helper()
	addr := p.Addr().String()
	if err := p.Close(); err != nil {
		t.Errorf("close proxy %s: %v", addr, err)
	}
	listening, err := sandbox.Listeners(os.Getpid())
	if err != nil {
		t.Errorf("read listeners: %v", err)
	}
	for _, a := range listening {
		if a.String() == addr {
			t.Errorf("listener left: the proxy still listens on %s", addr)
		}
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("listener left: %s still accepts connections after the proxy closed", addr)
	}
}
