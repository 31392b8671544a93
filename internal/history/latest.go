package history

// Latest returns the release's newest revision, objects included, reading
// the index and that one revision; nil when the release has none.
func Latest(stateDir string) (*Revision, error) {
	sums, err := Summaries(stateDir)
	if err != nil || len(sums) == 0 {
		return nil, err
	}
	return Load(stateDir, sums[len(sums)-1].Number)
}
