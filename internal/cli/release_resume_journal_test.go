package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The journal of an interrupted run torn in its last record is repaired by
// resume, which completes the run; one with a corrupted earlier record is
// refused with the offset named and left as it is.
func TestResumeRepairsTornJournalRefusesCorrupt(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)

	t.Run("torn last record", func(t *testing.T) {
		t.Parallel()
		r, p, path := interruptedRun(t, sb)
		data := readFile(t, path)
		writeFile(t, path, data[:len(data)-3])

		status := run(t, "release", "run", "--spec", r.spec)
		if !strings.Contains(status.stdout, "torn record") || !strings.Contains(status.stdout, "resume repairs it") {
			t.Errorf("status of a torn journal:\n%s", status.stdout)
		}
		res := run(t, "release", "resume", "--spec", r.spec)
		if res.code != ExitOK || !strings.Contains(res.stderr, "journal: repaired a torn last record") {
			t.Fatalf("resume of a torn journal: exit %d, stderr:\n%s\nwant exit 0 reporting the repair", res.code, res.stderr)
		}
		r.assertFinished(t, p)
		status = run(t, "release", "run", "--spec", r.spec)
		if !strings.Contains(status.stdout, ": finished") || strings.Contains(status.stdout, "torn") {
			t.Errorf("status after the repairing resume:\n%s", status.stdout)
		}
	})

	t.Run("corrupt middle record", func(t *testing.T) {
		t.Parallel()
		r, _, path := interruptedRun(t, sb)
		data := readFile(t, path)
		// The first record's frame starts after the 8-byte magic; its
		// payload after the frame's 8-byte header.
		const frame = 8
		data[frame+8+4] ^= 0x20
		writeFile(t, path, data)

		res := run(t, "release", "resume", "--spec", r.spec)
		if res.code == ExitOK || !strings.Contains(res.stderr, "corrupt record at offset 8") {
			t.Fatalf("resume of a corrupt journal: exit %d, stderr:\n%s\nwant a failure naming offset %d", res.code, res.stderr, frame)
		}
		if !bytes.Equal(readFile(t, path), data) {
			t.Errorf("the refused resume changed the corrupt journal")
		}
		if status := run(t, "release", "run", "--spec", r.spec); !strings.Contains(status.stderr, "offset 8") {
			t.Errorf("status of a corrupt journal: exit %d\n%s%s", status.code, status.stdout, status.stderr)
		}
	})
}

// interruptedRun applies the small release in a subprocess killed after
// its second outcome, and returns the run's journal path.
func interruptedRun(t *testing.T, sb *sandboxtest.Sandbox) (*testRelease, *plan.Plan, string) {
	t.Helper()
	r := newRelease(t, sb, "", smallManifests())
	p := r.plan(t)
	proc := startPiceli(t, apply.FailAfterOutcome+":2", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	if got := proc.wait(t, time.Minute); got != "killed" {
		t.Fatalf("apply: %s, want killed\n%s", got, proc.out.String())
	}
	id, _ := r.latestRun(t)
	return r, p, apply.JournalPath(r.stateDir, id)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
