package telemetry_test

import (
	"context"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/telemetry"
	"github.com/pynenc/piceli/internal/telemetry/telemetrytest"
)

// A trace reaches a real OTLP/HTTP receiver with its parent links, and the
// log record with it.
func TestTraceArrivesWithParents(t *testing.T) {
	rcv := telemetrytest.Start(t)
	s := telemetry.Start(telemetry.Options{Endpoint: rcv.URL, TraceSeed: "d1"})
	ctx, root := s.Tracer().Start(context.Background(), "root")
	_, child := s.Tracer().Start(ctx, "child")
	child.End()
	root.End()
	s.Log(ctx, "done", false)
	if rep := s.Shutdown(); rep.Error != "" {
		t.Fatalf("Shutdown() = %+v", rep)
	}
	spans := rcv.Spans()
	if len(spans) != 2 {
		t.Fatalf("receiver got %d spans, want 2", len(spans))
	}
	byName := map[string][]byte{}
	for _, sp := range spans {
		byName[sp.Name] = sp.SpanId
	}
	for _, sp := range spans {
		if sp.Name == "child" && string(sp.ParentSpanId) != string(byName["root"]) {
			t.Errorf("child's parent %x, want root %x", sp.ParentSpanId, byName["root"])
		}
	}
	if n := len(rcv.Logs()); n != 1 {
		t.Errorf("receiver got %d log records, want 1", n)
	}
}

// With nothing listening, or a receiver that never answers, Shutdown
// returns within the export timeout and says why nothing was sent.
func TestShutdownIsBoundedByTheTimeout(t *testing.T) {
	for name, endpoint := range map[string]string{"closed port": telemetrytest.ClosedPort(t), "silent receiver": telemetrytest.Silent(t)} {
		t.Run(name, func(t *testing.T) {
			const timeout = 500 * time.Millisecond
			s := telemetry.Start(telemetry.Options{Endpoint: endpoint, Timeout: timeout})
			_, span := s.Tracer().Start(context.Background(), "root")
			span.End()
			start := time.Now()
			rep := s.Shutdown()
			took := time.Since(start)
			t.Logf("%s: Shutdown took %s: %s", name, took.Round(time.Millisecond), rep)
			if took > timeout+200*time.Millisecond {
				t.Errorf("Shutdown took %s, over the %s bound", took, timeout)
			}
			if rep.Error == "" {
				t.Errorf("Shutdown() reports no error for %s", name)
			}
		})
	}
}

// The default bound, measured against a receiver that never answers.
func TestDefaultTimeoutBoundsASilentReceiver(t *testing.T) {
	s := telemetry.Start(telemetry.Options{Endpoint: telemetrytest.Silent(t)})
	_, span := s.Tracer().Start(context.Background(), "root")
	span.End()
	start := time.Now()
	rep := s.Shutdown()
	took := time.Since(start)
	t.Logf("silent receiver, default timeout: Shutdown took %s: %s", took.Round(time.Millisecond), rep)
	if took > telemetry.DefaultTimeout+200*time.Millisecond {
		t.Errorf("Shutdown took %s, over the default %s", took, telemetry.DefaultTimeout)
	}
}

func TestTimeoutIsClampedToTheHardMaximum(t *testing.T) {
	s := telemetry.Start(telemetry.Options{Endpoint: telemetrytest.Silent(t), Timeout: time.Hour})
	_, span := s.Tracer().Start(context.Background(), "root")
	span.End()
	start := time.Now()
	s.Shutdown()
	if took := time.Since(start); took > telemetry.MaxTimeout+time.Second {
		t.Errorf("Shutdown with a one-hour timeout took %s, want at most the %s maximum", took, telemetry.MaxTimeout)
	}
}
