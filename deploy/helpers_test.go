package deploy_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/deploy"
	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// gatedRegistry is an in-process registry on 127.0.0.1 that can hold its
// first blob upload until the test lets it go.
type gatedRegistry struct {
	addr   string
	mu     sync.Mutex
	hold   bool
	hit    chan struct{}
	open   chan struct{}
	once   sync.Once
	writes int
}

func startRegistry(t *testing.T) *gatedRegistry {
	t.Helper()
	g := &gatedRegistry{hit: make(chan struct{}), open: make(chan struct{})}
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.addr = l.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			g.mu.Lock()
			g.writes++
			hold := g.hold
			g.mu.Unlock()
			if hold {
				g.once.Do(func() { close(g.hit) })
				select {
				case <-g.open:
				case <-r.Context().Done():
					return
				}
			}
		}
		inner.ServeHTTP(w, r)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return g
}

// project is a copy of the services example whose release targets a fresh
// namespace of the sandbox and delivers to reg.
type project struct {
	dir, spec, build string
	ns               string // the release's namespace
}

func servicesProject(t *testing.T, sb *sandboxtest.Sandbox, reg string, extra string) project {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	example := filepath.Join(filepath.Dir(file), "..", "examples", "services")
	dir := t.TempDir()
	p := project{dir: dir, build: artifacttest.Services(t, dir), spec: filepath.Join(dir, "release.toml"), ns: sb.Namespace(t)}
	if _, err := artifact.Pin(t.Context(), p.build, artifact.PinOptions{}); err != nil {
		t.Fatal(err)
	}
	src := `[target]
kubeconfig = "` + sb.Kubeconfig + `"
context = "` + sb.Context + `"
namespace = "` + p.ns + `"

[release]
name = "services"
composition = "` + filepath.Join(example, "infra.go") + `:Build"

[images]
catalog = { build = "catalog", registry = "` + reg + `" }
orders = { build = "orders", registry = "` + reg + `" }
gateway = { build = "gateway", registry = "` + reg + `" }
cache = "docker.io/library/redis@sha256:7df1eeff67eb0ba84f6b9d2940765a6bb1158081426745c185a03b1507de6a09"

[deploy]
deliver = "registry"
registry = "` + reg + `"
` + extra
	if err := os.WriteFile(p.spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run deploys p in this process.
func (p project) run(t *testing.T, opts deploy.Options) (*deploy.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := deploy.Run(ctx, p.spec, opts)
	status := "none"
	if res != nil {
		status = string(res.Status)
	}
	t.Logf("deploy (approve %q, resume %t): %s in %s, err %v", opts.Approve, opts.Resume, status, time.Since(start).Round(time.Millisecond), err)
	return res, err
}

// plan runs a deploy up to its approval and returns the plan's hash.
func (p project) plan(t *testing.T) (*deploy.Result, *deploy.ApprovalRequiredError) {
	t.Helper()
	res, err := p.run(t, deploy.Options{})
	var a *deploy.ApprovalRequiredError
	if !errors.As(err, &a) {
		t.Fatalf("deploy without --approve: %v, want approval required", err)
	}
	return res, a
}

func (p project) approve(t *testing.T, hash string) *deploy.Result {
	t.Helper()
	res, err := p.run(t, deploy.Options{Approve: hash})
	if err != nil {
		t.Fatalf("deploy --approve: %v", err)
	}
	if res.Status != deploy.StatusFinished {
		t.Fatalf("deploy --approve ended %s, want finished", res.Status)
	}
	return res
}

// stages is "build done, deliver skipped, ..." for a deploy's state.
func stages(st *deploy.State) string {
	var parts []string
	for _, s := range st.Stages {
		parts = append(parts, string(s.Stage)+" "+s.Status)
	}
	return strings.Join(parts, ", ")
}

func stageStatus(t *testing.T, st *deploy.State, stage deploy.Stage) string {
	t.Helper()
	s, ok := st.Stage(stage)
	if !ok {
		return "not run"
	}
	return s.Status
}

func pin(t *testing.T, build string) {
	t.Helper()
	if _, err := artifact.Pin(t.Context(), build, artifact.PinOptions{}); err != nil {
		t.Fatal(err)
	}
}
