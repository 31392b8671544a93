package history

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/statedir"
)

// IndexSchema versions the history index document.
const IndexSchema = "piceli.history-index/v1"

// Summary is a revision without its objects: what the history index holds
// for each revision, and all that listing a release's history needs.
type Summary struct {
	Number   int       `json:"number"`
	Plan     string    `json:"plan"`
	Run      string    `json:"run"`
	Source   string    `json:"source,omitempty"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Outcome  string    `json:"outcome"`
	Objects  int       `json:"objects"` // how many objects the revision holds
	// Unchanged is the revision's: its run wrote no object.
	Unchanged bool           `json:"unchanged,omitempty"`
	Secrets   map[string]int `json:"secrets,omitempty"`
	Checks    *Checks        `json:"checks,omitempty"`
	// Damaged says why the revision may not be applied again (its seal
	// fails, or its objects are not its plan's), when a reader checked;
	// empty when it passed or was not checked. Never stored in the index.
	Damaged string `json:"damaged,omitempty"`
}

// Summary returns r's summary. Its Secrets is a copy.
func (r *Revision) Summary() Summary {
	return Summary{
		Number: r.Number, Plan: r.Plan, Run: r.Run, Source: r.Source,
		Started: r.Started, Finished: r.Finished, Outcome: r.Outcome,
		Objects: len(r.Objects), Unchanged: r.Unchanged, Secrets: maps.Clone(r.Secrets), Checks: r.Checks.clone(),
	}
}

// index is the document stored in stateDir/history/index.json.
type index struct {
	Schema    string    `json:"schema"`
	Revisions []Summary `json:"revisions"`
}

func indexFile(stateDir string) string { return filepath.Join(dir(stateDir), "index.json") }

// Summaries returns the summary of every revision, oldest first, from the
// history index alone: no revision file is read while the index lists
// every revision file there is. An index that is missing, unreadable, or
// behind the revision files (a state directory older than the index, or a
// crash between a revision and its index entry) is caught up by reading
// only the revision files it lacks, and saved. Saving is best effort: a
// read-only state directory still gets its answer and is caught up again
// next time. Summaries trusts the index over the revision files: an entry
// whose file was since removed or damaged is still returned.
func Summaries(stateDir string) ([]Summary, error) {
	ns, err := numbers(stateDir)
	if err != nil {
		return nil, err
	}
	sums, behind, err := caughtUp(stateDir, ns)
	if err != nil || !behind {
		return sums, err
	}
	writeIndex(stateDir, sums) // best effort, see above
	return sums, nil
}

// caughtUp returns the index's summaries plus those of the revision files
// ns that it lacks, sorted by number, and whether it lacked any.
func caughtUp(stateDir string, ns []int) ([]Summary, bool, error) {
	sums := readIndex(stateDir)
	have := make(map[int]bool, len(sums))
	for _, s := range sums {
		have[s.Number] = true
	}
	behind := false
	for _, n := range ns {
		if have[n] {
			continue
		}
		r, err := Load(stateDir, n)
		if err != nil {
			return nil, false, fmt.Errorf("index history: %w", err)
		}
		sums, behind = append(sums, r.Summary()), true
	}
	if behind {
		slices.SortFunc(sums, func(a, b Summary) int { return a.Number - b.Number })
	}
	return sums, behind, nil
}

// readIndex returns the index's summaries, or none when it is missing or
// cannot be read or decoded: the index is derived from the revision files,
// so a bad one is rebuilt rather than reported.
func readIndex(stateDir string) []Summary {
	data, err := statedir.ReadFile(indexFile(stateDir))
	if err != nil {
		return nil
	}
	var ix index
	if json.Unmarshal(data, &ix) != nil || ix.Schema != IndexSchema {
		return nil
	}
	return ix.Revisions
}

// writeIndex replaces the index with sums, atomically and owner-only.
func writeIndex(stateDir string, sums []Summary) error {
	data, err := json.Marshal(index{Schema: IndexSchema, Revisions: sums})
	if err != nil {
		return fmt.Errorf("encode history index: %w", err)
	}
	return atomicfile.Write(indexFile(stateDir), append(data, '\n'), 0o600)
}
