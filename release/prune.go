package release

import "github.com/pynenc/piceli/internal/history"

// previousObjects returns the objects of the release's latest revision,
// whose kinds and namespaces a plan's prune lists; none without one.
func previousObjects(stateDir string) ([]history.Object, error) {
	rev, err := history.Latest(stateDir)
	if err != nil || rev == nil {
		return nil, err
	}
	return rev.Objects, nil
}
