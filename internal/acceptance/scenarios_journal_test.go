package acceptance

import (
	le "encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/cli"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/release"
)

// journalScenarios tear, corrupt and fail the journal of a run.
func journalScenarios() []scenario {
	return []scenario{
		{
			name:     "a journal torn at sampled bytes of its last record is repaired by resume",
			fault:    "apply killed after its last outcome; copies of its journal cut at 20 offsets inside that record",
			expected: "every copy resumes to finished (or is refused cleanly) writing nothing; the original resumes too",
			fast:     true,
			run:      func(c *sc) { tornTail(c, false) },
		},
		{
			name:     "a journal torn at every byte of its last record is repaired by resume",
			fault:    "apply killed after its last outcome; a copy of its journal cut at each offset inside that record",
			expected: "every copy resumes to finished (or is refused cleanly) writing nothing; the original resumes too",
			run:      func(c *sc) { tornTail(c, true) },
		},
		{
			name:     "a flipped bit in each earlier journal record is refused naming its offset",
			fault:    "apply killed mid-run; in a copy of its journal per record, one bit flipped in that record",
			expected: "each resume exits 2 naming the record's offset, the copy untouched, nothing written; the original resumes",
			fast:     true,
			run:      flippedBits,
		},
		{
			name:     "a journal write error ends the run; resume repairs the torn append",
			fault:    "apply under a 1800-byte file size limit (prlimit): a journal append fails with EFBIG midway",
			expected: "exit 1 naming the journal and the error; status interrupted with a torn tail; resume finishes",
			fast:     true,
			run:      writeError,
		},
		fsyncError(2, false),
		fsyncError(3, true), // the first wave's outcomes, its writes all done
		fsyncError(len(commits), false),
	}
}

// interruptedRun applies the default release in a subprocess killed at
// armed, and returns the plan and the killed run's journal.
func (e *env) interruptedRun(armed string) (*plan.Plan, []byte) {
	e.t.Helper()
	p := e.plan()
	e.checkShape(p)
	e.markWrites()
	e.wantKilled(e.start(failpoint(armed), "release", "apply", "--spec", e.spec, "--approve", p.Hash))
	return p, readFile(e.t, e.journalPath())
}

// frames returns the offset of each record's frame in a journal: after the
// 8-byte magic, each frame is a 4-byte length, a 4-byte header checksum,
// the payload and a 4-byte payload checksum (internal/journal/frame.go).
func frames(t *testing.T, data []byte) []int {
	t.Helper()
	var out []int
	for off := 8; off < len(data); {
		if off+8 > len(data) {
			t.Fatalf("journal ends inside a frame header at %d", off)
		}
		out = append(out, off)
		off += 8 + int(le.LittleEndian.Uint32(data[off:off+4])) + 4
	}
	return out
}

// copyRelease copies the release's directory (spec, manifests, state
// directory) to a fresh one, as a second copy of the same files, and
// returns the spec in it and its run's journal.
func (e *env) copyRelease() (spec, journalPath string) {
	e.t.Helper()
	dir := e.copyDir()
	rel, err := filepath.Rel(e.dir, e.journalPath())
	if err != nil {
		e.t.Fatal(err)
	}
	return filepath.Join(dir, "release.toml"), filepath.Join(dir, rel)
}

// writesSinceMark counts the writes of release objects (Leases aside) the
// proxy forwarded since the mark.
func (e *env) writesSinceMark() int {
	n := 0
	for _, r := range e.proxy.Requests()[e.mark:] {
		if isWrite(r) && !strings.Contains(r.Path, "/leases") {
			n++
		}
	}
	return n
}

// tornTail kills a run after its last outcome, then resumes copies of its
// journal truncated inside that record: at every byte, or at a sample.
func tornTail(c *sc, every bool) {
	e := c.env(envOptions{})
	_, data := e.interruptedRun(fmt.Sprintf("%s:%d", apply.FailAfterOutcome, sum(shape)))
	offs := frames(e.t, data)
	last := offs[len(offs)-1]
	cuts := tornOffsets(last, len(data), every)
	e.markWrites()
	completed, refused := 0, 0
	for _, cut := range cuts {
		spec, jpath := e.copyRelease()
		torn := data[:cut]
		if err := os.WriteFile(jpath, torn, 0o600); err != nil {
			e.t.Fatal(err)
		}
		res := e.piceli("release", "resume", "--spec", spec)
		switch {
		case res.code == cli.ExitOK:
			completed++
			if st := journalState(e.t, jpath); st.Status != journal.StatusFinished {
				e.t.Errorf("journal cut at %d: resume exited 0 but the run is %s", cut, st.Status)
			}
		case res.code == cli.ExitRefused && string(readFile(e.t, jpath)) == string(torn):
			refused++
		default:
			e.t.Errorf("journal cut at %d (record at %d..%d): resume %s\nwant exit 0, or exit 2 leaving the journal as it was", cut, last, len(data), res)
		}
	}
	if n := e.writesSinceMark(); n != 0 {
		e.t.Errorf("the resumes of torn copies wrote %d times to the cluster, want none: every write had landed", n)
	}
	e.setFault("apply killed after its last outcome; copies of its journal cut at %d offsets in %d..%d: %d resumed, %d refused cleanly", len(cuts), last, len(data)-1, completed, refused)
	e.wantExit(cli.ExitOK, "resume")
}

// tornOffsets lists where to cut a journal whose last record spans
// [start, end): every offset, or the record's edges, its header and an
// even sample of its payload.
func tornOffsets(start, end int, every bool) []int {
	if every {
		var out []int
		for off := start; off < end; off++ {
			out = append(out, off)
		}
		return out
	}
	out := []int{start, start + 1, start + 4, start + 7, start + 8, end - 4, end - 3, end - 1}
	for k := 1; k <= 12; k++ {
		out = append(out, start+8+k*(end-4-start-8)/13)
	}
	return out
}

// journalState replays the journal at path.
func journalState(t *testing.T, path string) journal.State {
	t.Helper()
	recs, _, err := journal.Read(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	st, err := journal.Replay(recs)
	if err != nil {
		t.Fatalf("replay %s: %v", path, err)
	}
	return st
}

// flippedBits kills a run mid-way, then, for each record but the last,
// flips one bit of it in a copy of the journal: resume must refuse the
// copy, naming the record's offset, and leave it as it is.
func flippedBits(c *sc) {
	e := c.env(envOptions{})
	_, data := e.interruptedRun(apply.FailAfterOutcome + ":5")
	offs := frames(e.t, data)
	e.markWrites()
	h := fnv.New64a()
	h.Write([]byte(e.t.Name()))
	rng := rand.New(rand.NewPCG(suiteSeed(), h.Sum64()))
	for k, off := range offs[:len(offs)-1] {
		end := offs[k+1]
		spec, jpath := e.copyRelease()
		flipped := append([]byte(nil), data...)
		at := off + rng.IntN(end-off)
		flipped[at] ^= 1 << rng.IntN(8)
		if err := os.WriteFile(jpath, flipped, 0o600); err != nil {
			e.t.Fatal(err)
		}
		res := e.piceli("release", "resume", "--spec", spec)
		want := fmt.Sprintf("corrupt record at offset %d", off)
		if res.code != cli.ExitRefused || !strings.Contains(res.stderr, want) {
			e.t.Errorf("record %d (offset %d), bit flipped at byte %d: resume %s\nwant exit 2 saying %q", k, off, at, res, want)
		}
		if string(readFile(e.t, jpath)) != string(flipped) {
			e.t.Errorf("record %d: the refused resume changed the corrupt journal", k)
		}
		st := e.piceli("release", "run", "--spec", spec)
		if !strings.Contains(st.stdout+st.stderr, want) {
			e.t.Errorf("record %d: status of the corrupt journal does not say %q: %s", k, want, st)
		}
	}
	if n := e.writesSinceMark(); n != 0 {
		e.t.Errorf("the refused resumes wrote %d times to the cluster, want none", n)
	}
	e.setFault("apply killed at its 5th outcome; one bit flipped in each of its %d earlier records, in a copy each", len(offs)-1)
	e.wantExit(cli.ExitOK, "resume")
}

// writeError runs apply under a file size limit that a journal append
// crosses: the write fails (EFBIG, after a short write), the run ends.
func writeError(c *sc) {
	e := c.env(envOptions{})
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		e.t.Fatalf("this scenario makes a real write error with prlimit (util-linux): %v", err)
	}
	p := e.plan()
	e.markWrites()
	const limit = 1800
	proc := e.startWrapped([]string{prlimit, fmt.Sprintf("--fsize=%d", limit), "--"}, nil, "release", "apply", "--spec", e.spec, "--approve", p.Hash)
	if got := e.wait(proc, 2*time.Minute); got != "exit 1" {
		e.t.Fatalf("apply under a %d-byte file size limit: %s, want exit 1:\n%s", limit, got, proc.out.String())
	}
	wantIn(e.t, "the failed apply's output", proc.out.String(), "journal", "file too large")
	size := len(readFile(e.t, e.journalPath()))
	st := e.status()
	if st.Run == nil || st.Run.Phase != release.PhaseInterrupted || st.Run.TornTail == "" || size != limit {
		e.t.Errorf("after the failed append: status %+v, journal %d bytes; want interrupted with a torn tail, %d bytes", st.Run, size, limit)
	}
	e.wantExit(cli.ExitOK, "resume")
	e.wantEachStepAppliedOnce(p)
}

// commits lists the journal commits (fsyncs) a run of the default release
// makes, each as the number of records it makes durable: the run's start;
// per wave its intents, its outcomes (each written as it arrives, all made
// durable by one fsync once the wave's writes are done) and its readiness;
// then the run's end.
var commits = func() []int {
	c := []int{1}
	for _, n := range shape {
		c = append(c, n, n, 1)
	}
	return append(c, 1)
}()

// fsyncError fails the n-th journal fsync of the apply (the hook of the
// failpoints build): the run ends at that commit, whose records were
// written but not made durable, and never syncs that journal again. When
// the failed commit was not the run's last, the run is interrupted and
// resume finishes it; when it was the run-finished record, the journal
// reads finished already and the apply's exit 1 says the end is not
// durable.
func fsyncError(n int, fast bool) scenario {
	want := "exit 1 naming the journal and EIO; the journal ends with that commit's records, never synced again; "
	if n < len(commits) {
		want += "status interrupted; resume finishes"
	} else {
		want += "it reads finished (its last record unsynced); resume has nothing to do"
	}
	return scenario{
		name:     fmt.Sprintf("a failed fsync of the journal (commit %d of %d) ends the run and is never retried", n, len(commits)),
		fault:    fmt.Sprintf("%s=fsync:%d: the %s journal fsync of the apply fails with EIO", apply.JournalFaultEnv, n, ordinal(n)),
		expected: want,
		fast:     fast,
		run: func(c *sc) {
			e := c.env(envOptions{})
			p := e.plan()
			e.markWrites()
			proc := e.start(map[string]string{apply.JournalFaultEnv: fmt.Sprintf("fsync:%d", n)}, "release", "apply", "--spec", e.spec, "--approve", p.Hash)
			if got := e.wait(proc, 2*time.Minute); got != "exit 1" {
				e.t.Fatalf("apply with its %s journal fsync failing: %s, want exit 1:\n%s", ordinal(n), got, proc.out.String())
			}
			out := proc.out.String()
			wantIn(e.t, "the failed apply's output", out, "journal", "input/output error")
			if strings.Contains(out, apply.JournalRetryMarker) {
				e.t.Errorf("the journal was synced again after its fsync failed:\n%s", out)
			}
			recs, _, err := journal.Read(e.journalPath())
			if err != nil {
				e.t.Fatal(err)
			}
			if want := sum(commits[:n]); len(recs) != want {
				e.t.Errorf("the journal holds %d records, want %d: those of the first %d commits, the failed one last, nothing after it", len(recs), want, n)
			}
			if n == len(commits) {
				e.wantExit(cli.ExitRefused, "resume")
				return
			}
			if got := e.runStatus(); got != string(release.PhaseInterrupted) {
				e.t.Errorf("status after the failed fsync = %s, want interrupted", got)
			}
			e.wantExit(cli.ExitOK, "resume")
			e.wantEachStepAppliedOnce(p)
		},
	}
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return fmt.Sprintf("%dth", n)
}
