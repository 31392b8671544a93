package history

import (
	"encoding/json"
	"fmt"
)

// Latest returns the release's newest revision, objects included, reading
// the index and that one revision; nil when the release has none.
func Latest(stateDir string) (*Revision, error) {
	n, ok, err := latestNumber(stateDir)
	if err != nil || !ok {
		return nil, err
	}
	return Load(stateDir, n)
}

// LatestWithoutManifests is Latest for a caller that needs the newest
// revision's object references but not their manifests (what a plan
// lists for prune): every Object.Manifest is nil, and decoding a large
// revision skips most of its work. Its Seal cannot be verified.
func LatestWithoutManifests(stateDir string) (*Revision, error) {
	n, ok, err := latestNumber(stateDir)
	if err != nil || !ok {
		return nil, err
	}
	data, err := readFile(stateDir, n)
	if err != nil {
		return nil, err
	}
	var lean struct {
		Revision
		Objects []struct {
			Object
			Manifest skipped `json:"manifest"`
		} `json:"objects"`
	}
	if err := json.Unmarshal(data, &lean); err != nil {
		return nil, fmt.Errorf("read revision %d: %w", n, err)
	}
	r := lean.Revision
	r.Objects = make([]Object, len(lean.Objects))
	for i, o := range lean.Objects {
		r.Objects[i] = o.Object
	}
	return &r, nil
}

// latestNumber is the newest revision's number; ok is false when there is
// none.
func latestNumber(stateDir string) (n int, ok bool, err error) {
	sums, err := Summaries(stateDir)
	if err != nil || len(sums) == 0 {
		return 0, false, err
	}
	return sums[len(sums)-1].Number, true, nil
}

// skipped is a JSON value decoding skips: encoding/json only scans it.
type skipped struct{}

// UnmarshalJSON ignores the value.
func (*skipped) UnmarshalJSON([]byte) error { return nil }
