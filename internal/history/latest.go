package history

// Latest returns the release's newest revision, or nil when it has none.
func Latest(stateDir string) (*Revision, error) {
	revs, err := List(stateDir)
	if err != nil || len(revs) == 0 {
		return nil, err
	}
	return &revs[len(revs)-1], nil
}
