package readiness

import "testing"

// A real kubelet may keep a crash-looping container Terminated for its whole
// back-off, never reporting CrashLoopBackOff: failing again after a restart
// is a crash loop too. A first failure, or a clean exit, is not.
func TestComputePodFailingAfterRestart(t *testing.T) {
	pod := func(exitCode, restarts int64) map[string]any {
		return map[string]any{"phase": "Running", "containerStatuses": []any{map[string]any{
			"name": "worker", "restartCount": restarts, "ready": false,
			"state": map[string]any{"terminated": map[string]any{"exitCode": exitCode, "reason": "Error"}},
		}}}
	}
	tests := map[string]struct {
		status map[string]any
		want   Status
		msg    string
	}{
		"failed again after restarts": {pod(3, 2), Failed, "containers in CrashLoopBackOff: worker"},
		"failed once, not restarted":  {pod(3, 0), InProgress, "pod Running, not ready"},
		"exited 0 after a restart":    {pod(0, 1), InProgress, "pod Running, not ready"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := Compute(newObject("v1", "Pod", 0, nil, tt.status))
			if got.Status != tt.want || got.Message != tt.msg {
				t.Errorf("Compute() = %+v, want %s %q", got, tt.want, tt.msg)
			}
		})
	}
}
