package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/statedir"
)

// Schema versions a revision document.
const Schema = "piceli.revision/v1"

// ErrNoRevision is returned when a requested revision does not exist.
var ErrNoRevision = errors.New("no such revision")

// Revision is one applied plan of a release.
type Revision struct {
	Schema   string    `json:"schema"`
	Number   int       `json:"number"`
	Plan     string    `json:"plan"` // the plan hash
	Run      string    `json:"run"`
	Source   string    `json:"source,omitempty"` // "apply" or "rollback to N"
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Outcome  string    `json:"outcome"`
	// Unchanged records that the run changed nothing: every step of its
	// plan was a no-op, so it wrote no object.
	Unchanged bool     `json:"unchanged,omitempty"`
	Objects   []Object `json:"objects"`
	// Secrets maps each declared secret to the version of the private store
	// the revision used; rollback puts those versions back.
	Secrets map[string]int `json:"secrets,omitempty"`
	// Checks are the run's checks, or that it skipped them.
	Checks *Checks `json:"checks,omitempty"`
	// Seal is a keyed digest of every other field under a key derived
	// from the release's digest key (see Verify), set by Add. Whoever
	// edits a revision file without the key cannot make a matching one.
	Seal string `json:"seal,omitempty"`
}

// Object is one object of a revision as it was applied. Secret values are
// keyed digests, never values.
type Object struct {
	Ref        object.Ref     `json:"ref"`
	APIVersion string         `json:"apiVersion"`
	Resource   string         `json:"resource"`
	Manifest   map[string]any `json:"manifest"`
}

func dir(stateDir string) string { return statedir.Path(stateDir, statedir.History) }

func file(stateDir string, n int) string {
	return filepath.Join(dir(stateDir), fmt.Sprintf("%06d.json", n))
}

// Add stores r as the release's next revision, sealed with key (the
// release's digest key, see Verify), atomically and owner-only, then adds
// it to the history index (see Summaries), and returns its number. Add is idempotent per run: when a revision of r.Run exists
// already (a resume redoing the end of a run that crashed after recording
// it), Add writes nothing and returns that revision's number, or an error
// when that revision is of another plan. A revision without a Run is
// always added. An error after the revision file is stored, while updating
// the index, still returns the number: the revision exists, and Summaries
// catches the index up. The caller holds the release's lock: two Adds at
// once could pick the same number.
func Add(stateDir string, key []byte, r Revision) (int, error) {
	ns, err := numbers(stateDir)
	if err != nil {
		return 0, err
	}
	sums, _, err := caughtUp(stateDir, ns)
	if err != nil {
		return 0, err
	}
	if n, ok, err := recorded(sums, r); ok {
		return n, err
	}
	r.Schema, r.Number = Schema, 1
	if len(ns) > 0 {
		r.Number = ns[len(ns)-1] + 1
	}
	var doc []byte
	if r.Seal, doc, err = sealed(key, r); err != nil {
		return 0, err
	}
	if err := store(stateDir, r.Number, doc); err != nil {
		return 0, err
	}
	if err := addToIndex(stateDir, sums, r.Summary()); err != nil {
		return r.Number, fmt.Errorf("index revision %d: %w", r.Number, err)
	}
	return r.Number, nil
}

// recorded finds the revision sums already hold for r's run: its number
// and true, with an error when it records another plan.
func recorded(sums []Summary, r Revision) (int, bool, error) {
	if r.Run == "" {
		return 0, false, nil
	}
	for _, s := range sums {
		if s.Run != r.Run {
			continue
		}
		if s.Plan != r.Plan {
			return s.Number, true, fmt.Errorf("run %s is revision %d already, of plan %s, not %s", r.Run, s.Number, s.Plan, r.Plan)
		}
		return s.Number, true, nil
	}
	return 0, false, nil
}

// store writes revision n's file, its JSON doc as it is (compact: every
// plan reads the latest revision), atomically and owner-only.
func store(stateDir string, n int, doc []byte) error {
	if err := atomicfile.MkdirPrivate(dir(stateDir)); err != nil {
		return fmt.Errorf("store revision: %w", err)
	}
	return atomicfile.Write(file(stateDir, n), append(doc, '\n'), 0o600)
}

// addToIndex saves the index sums (caught up with the revision files)
// plus s. Entries numbered s.Number or later have no file (s is numbered
// past the newest one) and are dropped.
func addToIndex(stateDir string, sums []Summary, s Summary) error {
	sums = slices.DeleteFunc(slices.Clone(sums), func(x Summary) bool { return x.Number >= s.Number })
	return writeIndex(stateDir, append(sums, s))
}

// Load reads revision n.
func Load(stateDir string, n int) (*Revision, error) {
	data, err := readFile(stateDir, n)
	if err != nil {
		return nil, err
	}
	var r Revision
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read revision %d: %w", n, err)
	}
	return &r, nil
}

// readFile reads revision n's file; ErrNoRevision when there is none.
func readFile(stateDir string, n int) ([]byte, error) {
	data, err := statedir.ReadFile(file(stateDir, n))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("revision %d: %w", n, ErrNoRevision)
	}
	if err != nil {
		return nil, fmt.Errorf("read revision %d: %w", n, err)
	}
	return data, nil
}

// List reads every revision file, objects included, oldest first. Callers
// that need no objects use Summaries, which reads only the index.
func List(stateDir string) ([]Revision, error) {
	ns, err := numbers(stateDir)
	if err != nil {
		return nil, err
	}
	out := make([]Revision, 0, len(ns))
	for _, n := range ns {
		r, err := Load(stateDir, n)
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, nil
}

func numbers(stateDir string) ([]int, error) {
	names, err := statedir.List(dir(stateDir), statedir.Files, func(name string) bool {
		_, ok := revisionNumber(name)
		return ok
	})
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	var ns []int
	for _, name := range names {
		n, _ := revisionNumber(name)
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns, nil
}

// revisionNumber is the number of a revision file's name, NNNNNN.json.
func revisionNumber(name string) (int, bool) {
	digits, ok := strings.CutSuffix(name, ".json")
	n, err := strconv.Atoi(digits)
	return n, ok && err == nil
}
