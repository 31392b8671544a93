package wire

// ChartInfo is a Helm chart a Go composition adds (app.App.Chart). Piceli
// renders it after the program ends, as it renders release.toml's
// [[charts]]: the program never loads the chart.
type ChartInfo struct {
	// Path is the chart (.tgz or directory), relative to the directory of
	// release.toml unless absolute.
	Path   string `json:"path"`
	Digest string `json:"digest"` // "sha256:" and 64 hex digits
	// Name is the Helm release name; empty means the release's name.
	Name   string         `json:"name,omitempty"`
	Values map[string]any `json:"values,omitempty"`
}

// KustomizationInfo is a local kustomization a Go composition adds
// (app.App.Kustomization), rendered as release.toml's [[kustomizations]].
type KustomizationInfo struct {
	Path string `json:"path"`           // relative to release.toml's directory unless absolute
	Root string `json:"root,omitempty"` // empty means Path
}
