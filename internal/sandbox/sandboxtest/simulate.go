package sandboxtest

import (
	"bytes"
	"os"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox"
)

// SimulateAnnotations returns the pod annotations that make kwok report
// failure value instead of running the pod: sandbox.SimulateImagePullBackOff
// or sandbox.SimulateCrashLoop. Put them on a pod or a pod template. The
// test fails when the sandbox was started without the stages that do this
// (by an older piceli): it must be restarted.
func (s *Sandbox) SimulateAnnotations(t testing.TB, value string) map[string]string {
	t.Helper()
	s.requireSimulation(t)
	return map[string]string{sandbox.SimulateAnnotation: value}
}

// requireSimulation reads the kwokctl configuration the sandbox was started
// from, when it is at hand, and fails the test unless it carries the
// sandbox's simulation stages.
func (s *Sandbox) requireSimulation(t testing.TB) {
	t.Helper()
	layout, err := sandbox.NewLayout(s.Dir, s.Name)
	if err != nil {
		return
	}
	cfg, err := os.ReadFile(layout.Config())
	if err != nil {
		return // started from elsewhere: the test itself will tell
	}
	if !bytes.Contains(cfg, []byte(sandbox.SimulateAnnotation)) {
		t.Fatalf("sandbox %q was started without the %s stages (%s lacks them): restart it with "+
			"`piceli sandbox down --name %[1]s && piceli sandbox up --name %[1]s`",
			s.Name, sandbox.SimulateAnnotation, layout.Config())
	}
}
