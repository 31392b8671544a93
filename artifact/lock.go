package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/refusal"
)

// LockSchema versions the lock file.
const LockSchema = "piceli.build-lock/v1"

// Lock is the lock file: the platform the images are built for and every
// input of the build, sorted. It holds no absolute path of the project, so a
// copy of the project elsewhere has the same lock.
type Lock struct {
	Schema   string  `json:"schema"`
	Platform string  `json:"platform"`
	Inputs   []Input `json:"inputs"`
}

// PinOptions tune Pin. The zero value is valid.
type PinOptions struct {
	// Platform is the OS/architecture to build for, such as "linux/arm64";
	// empty keeps the lock's, or else linux and this machine's architecture.
	Platform string
}

// PinResult says what Pin recorded.
type PinResult struct {
	Schema  string   `json:"schema"`  // PinSchema
	Lock    string   `json:"lock"`    // the lock file written
	Inputs  []Input  `json:"inputs"`  // every pinned input
	Changed []string `json:"changed"` // inputs added, changed or dropped since the previous lock
}

// PinSchema versions the document of a PinResult.
const PinSchema = "piceli.pin/v1"

var platformRE = regexp.MustCompile(`^linux/(amd64|arm64|arm|386|ppc64le|s390x|riscv64)$`)

// Pin records every input of the build spec at specPath (the spec itself,
// every file and directory entry, each Go package's files and module sums,
// base layouts by manifest digest, the Go version and the layout format) in
// its lock file, replacing it atomically. It runs `go list` offline and
// writes nothing else.
func Pin(ctx context.Context, specPath string, opts PinOptions) (*PinResult, error) {
	s, err := LoadSpec(specPath)
	if err != nil {
		return nil, err
	}
	platform := opts.Platform
	old, _ := readLock(s.Lock)
	if platform == "" && old != nil {
		platform = old.Platform
	}
	if platform == "" {
		platform = "linux/" + runtime.GOARCH
	}
	if !platformRE.MatchString(platform) {
		return nil, fmt.Errorf("platform %q: want linux/ARCH such as linux/amd64", platform)
	}
	set, err := collect(ctx, s, platform)
	if err != nil {
		return nil, err
	}
	lock := &Lock{Schema: LockSchema, Platform: platform, Inputs: set.sorted()}
	data, err := json.MarshalIndent(lock, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(s.Lock, append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	res := &PinResult{Schema: PinSchema, Lock: s.Lock, Inputs: lock.Inputs, Changed: []string{}}
	if old != nil {
		for _, d := range compareInputs(old.Inputs, lock.Inputs) {
			res.Changed = append(res.Changed, d.String())
		}
	}
	return res, nil
}

// readLock reads a lock file; a missing one is an error matching
// os.ErrNotExist.
func readLock(path string) (*Lock, error) {
	data, err := inputfile.Read(path, inputfile.SpecLimit)
	if err != nil {
		return nil, err
	}
	var l Lock
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, &SpecError{File: path, Msg: "not a lock file: " + err.Error()}
	}
	if l.Schema != LockSchema {
		return nil, &SpecError{File: path, Key: "schema", Msg: fmt.Sprintf("%q: want %q; run piceli artifacts pin", l.Schema, LockSchema)}
	}
	if !platformRE.MatchString(l.Platform) {
		return nil, &SpecError{File: path, Key: "platform", Msg: fmt.Sprintf("%q: want linux/ARCH", l.Platform)}
	}
	return &l, nil
}

// collect gathers the current inputs of s for platform.
func collect(ctx context.Context, s *Spec, platform string) (*inputSet, error) {
	set := newInputSet(projectRoot(s.Dir))
	if err := set.addFile(s.Path); err != nil {
		return nil, err
	}
	spec := set.inputs[InputFile+" "+set.name(s.Path)]
	delete(set.inputs, spec.String())
	spec.Kind = InputSpec
	set.add(spec)
	set.add(Input{Kind: InputPlatform, Name: "target", Digest: platform})
	set.add(Input{Kind: InputTool, Name: "piceli layout writer", Digest: layoutFormat})
	for _, name := range sortedKeys(s.Bases) {
		if err := set.addBase(s.Bases[name]); err != nil {
			return nil, err
		}
	}
	var g *goTool
	for _, name := range sortedKeys(s.Images) {
		im := s.Images[name]
		if err := set.addEntries(im.Files); err != nil {
			return nil, err
		}
		if im.Go == "" {
			continue
		}
		if g == nil {
			var err error
			if g, err = findGo(platform); err != nil {
				return nil, err
			}
			v, err := g.version(ctx)
			if err != nil {
				return nil, err
			}
			set.add(Input{Kind: InputTool, Name: "go", Digest: v})
		}
		if err := set.addGoInputs(ctx, g, im.Go); err != nil {
			return nil, fmt.Errorf("image %s: %w", name, err)
		}
	}
	return set, nil
}

func (s *inputSet) addEntries(entries []Entry) error {
	for _, e := range entries {
		if err := s.addTree(e.Src); err != nil {
			return fmt.Errorf("%s: %w", e.Key, err)
		}
	}
	return nil
}

func (s *inputSet) addBase(b *Base) error {
	if b.Layout == "" {
		return s.addEntries(b.Files)
	}
	desc, err := resolveRef(b.Layout, b.Ref)
	if err != nil {
		return fmt.Errorf("base.%s: %w", b.Name, err)
	}
	s.add(Input{Kind: InputLayout, Name: s.name(b.Layout) + " " + b.Ref, Digest: desc.Digest.String()})
	return nil
}

// InputError says which inputs of a build differ from its lock file, so
// the build was refused before anything was written.
type InputError struct {
	Lock  string
	Drift []Drift
}

// Is reports that drifted inputs are a refusal (refusal.Is).
func (e *InputError) Is(target error) bool { return target == refusal.ErrRefused }

// Drift is one input that differs from its pin: unpinned (Pinned empty),
// changed, or pinned and gone (Now empty).
type Drift struct {
	Input  string
	Pinned string
	Now    string
}

// String says how the input drifted, as the build's refusal does.
func (d Drift) String() string {
	switch {
	case d.Pinned == "":
		return fmt.Sprintf("%s is not pinned (now %s)", d.Input, d.Now)
	case d.Now == "":
		return fmt.Sprintf("%s is pinned (%s) but no longer an input", d.Input, d.Pinned)
	}
	return fmt.Sprintf("%s changed since it was pinned (pinned %s, now %s)", d.Input, d.Pinned, d.Now)
}

// Error lists every drifted input and what to run next.
func (e *InputError) Error() string {
	lines := make([]string, len(e.Drift))
	for i, d := range e.Drift {
		lines[i] = d.String()
	}
	return fmt.Sprintf("build refused, nothing written: %s; review the change and run `piceli artifacts pin` to update %s",
		strings.Join(lines, "; "), filepath.Base(e.Lock))
}

// compareInputs lists how now differs from pinned, in input order.
func compareInputs(pinned, now []Input) []Drift {
	byName := map[string]Input{}
	for _, in := range pinned {
		byName[in.String()] = in
	}
	var out []Drift
	for _, in := range now {
		p, ok := byName[in.String()]
		delete(byName, in.String())
		switch {
		case !ok:
			out = append(out, Drift{Input: in.String(), Now: in.Digest})
		case p.Digest != in.Digest:
			out = append(out, Drift{Input: in.String(), Pinned: p.Digest, Now: in.Digest})
		}
	}
	for _, name := range sortedKeys(byName) {
		out = append(out, Drift{Input: name, Pinned: byName[name].Digest})
	}
	return out
}

// verifyPinned reads the lock of s and refuses, with an *InputError, when
// the current inputs differ from it. It returns the lock.
func verifyPinned(ctx context.Context, s *Spec) (*Lock, []byte, error) {
	data, err := inputfile.Read(s.Lock, inputfile.SpecLimit)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, refusedf("build refused, nothing written: no lock file %s; run `piceli artifacts pin` to pin the inputs", s.Lock)
	}
	lock, err := readLock(s.Lock)
	if err != nil {
		return nil, nil, err
	}
	set, err := collect(ctx, s, lock.Platform)
	if err != nil {
		return nil, nil, err
	}
	if drift := compareInputs(lock.Inputs, set.sorted()); len(drift) > 0 {
		return nil, nil, &InputError{Lock: s.Lock, Drift: drift}
	}
	return lock, data, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
