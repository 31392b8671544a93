package bench

import (
	"context"

	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/apply"
)

// idleWindow is how long the benchmark watches the idle sandbox to tell
// the control plane's own rate of attributed requests.
const idleWindow = 10 * time.Second

// idleRate measures the attributed requests per second of the sandbox
// while nothing is measured.
func (b *bench) idleRate(ctx context.Context) (float64, error) {
	before, err := b.c.requests(ctx)
	if err != nil {
		return 0, err
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(idleWindow):
	}
	after, err := b.c.requests(ctx)
	if err != nil {
		return 0, err
	}
	return clientRequests(before, after) / idleWindow.Seconds(), nil
}

// write checks that every figure is there, then writes the results file
// and prints its table. A missing figure fails the run and leaves the file
// as it was.
func (b *bench) write(ctx context.Context, stdout io.Writer) error {
	if missing := b.res.missing(); len(missing) > 0 {
		return fmt.Errorf("figures missing, %s not written:\n  %s", b.cfg.Out, strings.Join(missing, "\n  "))
	}
	if b.cfg.PeersOnly {
		fmt.Fprint(stdout, b.peersOnly(ctx))
		return nil
	}
	doc := b.document(ctx)
	fmt.Fprint(stdout, doc)
	return os.WriteFile(b.cfg.Out, []byte(doc), 0o644)
}

func (b *bench) document(ctx context.Context) string {
	m := describeMachine(ctx, b)
	var s strings.Builder
	fmt.Fprintf(&s, `# Performance

Written by `+"`make bench`"+` (internal/bench); do not edit by hand. Every figure below was
measured in one run, Piceli and kubectl side by side on the same sandbox.

- Date: %s (run took %s)
- Machine: %s, %d cores, %.0f GB memory, Linux %s; load average %s at the start, %s at the end
- Go %s; API server %s (a private kwok sandbox with %d fake nodes, started for the run); kubectl %s
- Medians of %d runs, the fastest and slowest in brackets; ratios are Piceli's median over kubectl's
- Piceli's requests in flight: %s
- Control plane background: %.1f attributed API requests per second while idle (counted in the figures)

## How it measures

- Each figure is one process, timed from start to exit: a Piceli worker driving the `+"`release`"+`
  library as the CLI does (`+"`Render`, `Plan`, `Apply(hash)`"+`), or the sandbox's kubectl.
- Synthetic releases: ConfigMaps only, or per 10 objects 3 ConfigMaps, 2 Secrets, 2
  ServiceAccounts, 2 headless Services and 1 one-replica Deployment; from a YAML file, or the
  same objects from a Go composition (cmd/piceli-bench/synthetic) whose compiled binary is cached.
- Piceli, in a new namespace each run: plan (the namespace absent), apply of that plan (approval
  check, journal, readiness of every wave), plan again (no-op), apply of that no-op plan.
  kubectl, in another namespace, on the manifests Piceli renders plus their Namespace:
  `+"`apply --server-side`"+` (then `+"`wait --for=condition=Available`"+` for Deployments),
  `+"`diff --server-side`"+`, and `+"`apply --server-side`"+` again. Its discovery cache is kept between
  its commands, as a user's would be.
- The journal's cost: inside each fresh apply, the time its commits (one write and one fsync
  each, a wave's writes sharing them) took; they run one at a time, so that bounds what the
  journal adds. Beside it, "journal without fsync" is the same fresh apply by a build with the
  piceli_nofsync tag, whose journal writes but does not fsync: the difference between two runs,
  which on a loaded machine is mostly noise. No user build can turn fsync off.
- "readiness" is the time from a wave's last write to its readiness, summed over the waves.
- Peak RSS: the high-water mark of the Piceli worker's resident set (VmHWM) or, when larger, of a
  process it ran (the Go composition), as the worker reads them itself: a child's own
  getrusage figure would start at the benchmark's size.
- API requests per object: the rise of the API server's `+"`apiserver_request_total`"+` during the
  process, over the resources the releases hold (ConfigMaps, Secrets, ServiceAccounts, Services,
  Deployments, Namespaces) and discovery, without status updates (the controllers'), divided by
  the release's objects. Pods, ReplicaSets, Leases (the components' and Piceli's own) and health
  checks are left out.

## Results

`, time.Now().UTC().Format("2006-01-02 15:04 UTC"), time.Since(b.started).Round(time.Second), m.CPU, m.Cores, m.MemoryGB, m.Kernel, b.loadStart, loadAverage(),
		m.Go, m.Server, b.cfg.Nodes, m.Kubectl, b.cfg.Runs, b.parallelism(), b.idle)
	s.WriteString(b.res.table())
	s.WriteString("\n## Acceptance targets (issue 19)\n\n| target | measured | |\n| --- | --- | --- |\n")
	for _, v := range b.res.acceptance() {
		fmt.Fprintf(&s, "| %s | %s | %s |\n", v.What, v.Value, v.status())
	}
	s.WriteString(peerSection(b.res))
	s.WriteString(codegenSection(b.codegen))
	if b.ctl != nil {
		s.WriteString(controllerSection(*b.ctl))
	}
	if b.stop != nil {
		s.WriteString(stopSection(*b.stop))
	}
	return s.String()
}

// peerHow says how the peers are measured.
const peerHow = `Each run also measures two peers on the 1,000-ConfigMap release (from YAML), each in its
own namespace, the four tools taking turns at going first:

- The floor (` + "`piceli-bench floor`" + `, internal/bench/floor.go): a minimal client-go program, its
  own process, that reads the manifests kubectl applies and server-side applies them with
  Piceli's connection settings (internal/kube: client-side limits, discovery and mapper) and
  Piceli's requests in flight: the Namespace first, then every ConfigMap, each a plain apply
  under its own field manager without force. No plan, approval, lock, journal or readiness:
  what any tool must at least spend. Its no-op figure is the same program run again.
- Helm 4, the CLI at the version tools/compare pins, with its defaults (server-side apply, no
  wait, its own client-side rate limits): ` + "`helm install`" + ` of a chart whose one template holds
  the same ConfigMaps (release label included; the namespace from ` + "`--namespace`" + `,
  ` + "`--create-namespace`" + `), then ` + "`helm upgrade`" + ` with the same chart, which changes
  nothing. Its caches and configuration live in the run's work directory.
- Piceli's figures are those of the table above (fresh apply with approval check, journal and
  readiness; no-op apply of the no-op plan); kubectl's too.
- ` + "`make bench BENCHFLAGS=-peers-only`" + ` measures only this table (and the Piceli and kubectl
  figures it needs) and prints it without writing this file.
`

// peerSection is the document's section on the peers.
func peerSection(r *results) string {
	return "\n## Peers: the floor and Helm 4\n\n" + peerHow + "\n" + r.peerTable() +
		"\n### Acceptance targets (issue 35, point 5)\n\n" + verdictTable(r.peerAcceptance())
}

// peersOnly is what a -peers-only run prints.
func (b *bench) peersOnly(ctx context.Context) string {
	m := describeMachine(ctx, b)
	return fmt.Sprintf("# Peers (piceli-bench -peers-only; %s not written)\n\n- Date: %s (run took %s)\n- Machine: %s, %d cores; load average %s at the start, %s at the end\n- Medians of %d runs, the fastest and slowest in brackets; Piceli's requests in flight: %s\n\n",
		b.cfg.Out, time.Now().UTC().Format("2006-01-02 15:04 UTC"), time.Since(b.started).Round(time.Second), m.CPU, m.Cores, b.loadStart, loadAverage(), b.cfg.Runs, b.parallelism()) +
		b.res.table() + "\n" + peerHow + "\n" + b.res.peerTable() + "\n" + verdictTable(b.res.peerAcceptance())
}

// parallelism says what requests in flight Piceli ran with.
func (b *bench) parallelism() string {
	if b.cfg.Parallel == 0 {
		return fmt.Sprintf("the default (%d)", apply.DefaultParallel)
	}
	return fmt.Sprintf("%d (-parallel; the default is %d)", b.cfg.Parallel, apply.DefaultParallel)
}
