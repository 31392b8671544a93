package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	pub "github.com/pynenc/piceli/archive"
	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
)

// Schema versions an archive document.
const Schema = pub.Schema

// FileName is the archive's name inside a run's directory.
const FileName = "archive.json"

// MaxSize is the largest archive Read accepts; an archive holds references
// and digests, never manifests, so a real one is far smaller.
const MaxSize = 32 << 20

// The archive document's types live in the public package archive,
// where users read them.
type (
	Archive     = pub.Archive
	Object      = pub.Object
	Checks      = pub.Checks
	CheckResult = pub.CheckResult
)

// Build makes the archive of run from its plan, its journal's records and
// the revision it became (0: none). It is pure.
func Build(run, source string, p *plan.Plan, recs []journal.Record, revision int) (*Archive, error) {
	st, err := journal.Replay(recs)
	if err != nil {
		return nil, fmt.Errorf("archive run %s: %w", run, err)
	}
	a := &Archive{Schema: Schema, Run: run, Source: source, Release: p.Release.Name, Target: p.Target,
		Namespaces: namespaces(p), Plan: p.Hash, Revision: revision, Status: string(st.Status), Error: st.Error}
	if len(recs) > 0 {
		a.Started, a.Ended = recs[0].Time.UTC(), recs[len(recs)-1].Time.UTC()
	}
	for i, s := range p.Steps {
		a.Objects = append(a.Objects, objectOf(s, st.Steps[i]))
	}
	if st.ChecksSkipped || len(st.Checks) > 0 {
		a.Checks = &Checks{Skipped: st.ChecksSkipped, Results: checkResults(st.Checks)}
	}
	return a, nil
}

// checkResults are the journal's check records as the archive holds them.
func checkResults(cs []journal.Check) []CheckResult {
	out := make([]CheckResult, len(cs))
	for i, c := range cs {
		out[i] = CheckResult(c)
	}
	return out
}

func objectOf(s plan.Step, ss journal.StepState) Object {
	outcome := ss.Status
	if outcome == "" {
		outcome = journal.StepPending
	}
	return Object{Ref: s.Ref, APIVersion: s.APIVersion, Resource: s.Resource, Action: string(s.Action),
		Declared: s.Action != plan.Delete, Digest: s.Desired, Outcome: string(outcome), Error: ss.Error}
}

// namespaces are the plan's namespaces, or its target namespace.
func namespaces(p *plan.Plan) []string {
	ns := slices.Clone(p.Namespaces)
	if p.Target.Namespace != "" && !slices.Contains(ns, p.Target.Namespace) {
		ns = append(ns, p.Target.Namespace)
	}
	slices.Sort(ns)
	return ns
}

// Path is the archive of run in the state directory's run directory dir.
func Path(runDir string) string { return filepath.Join(runDir, FileName) }

// Write replaces the archive at path atomically, owner-only. The file is
// compact JSON: every run writes one, and indenting an archive of
// thousands of objects cost a no-op apply a few milliseconds. Encode gives
// the indented form that `release archive` prints and exports.
func Write(path string, a *Archive) error {
	data, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("encode session archive: %w", err)
	}
	data = append(data, '\n')
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("write session archive: %w", err)
	}
	return nil
}

// Encode is the archive's stable JSON form, indented, with a final newline.
func Encode(a *Archive) ([]byte, error) {
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode session archive: %w", err)
	}
	return append(data, '\n'), nil
}

// Read reads and checks the archive at path. A file that is not a session
// archive, has unknown fields, or lacks the target is an error naming the
// file (and the line, for malformed JSON).
func Read(path string) (*Archive, error) {
	f, err := inputfile.Open(path, inputfile.Options{})
	if err != nil {
		return nil, fmt.Errorf("read session archive: %w", err)
	}
	defer f.Close()
	data, err := readLimited(f, MaxSize)
	if err != nil {
		return nil, fmt.Errorf("read session archive %s: %w", path, err)
	}
	a, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("session archive %s: %w", path, err)
	}
	return a, nil
}

// Decode parses and checks an archive document.
func Decode(data []byte) (*Archive, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var a Archive
	if err := dec.Decode(&a); err != nil {
		return nil, located(data, err)
	}
	if a.Schema != Schema {
		return nil, fmt.Errorf("key \"schema\" is %q, want %q", a.Schema, Schema)
	}
	if a.Target.ClusterUID == "" || a.Target.Namespace == "" {
		return nil, errors.New("key \"target\" lacks clusterUID or namespace")
	}
	for i, o := range a.Objects {
		if o.Ref.Kind == "" || o.Ref.Name == "" || o.APIVersion == "" || o.Resource == "" {
			return nil, fmt.Errorf("key \"objects\"[%d] lacks kind, name, apiVersion or resource", i)
		}
	}
	return &a, nil
}

// located adds the line of a JSON syntax or type error.
func located(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err
	}
	line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}
