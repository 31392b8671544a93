package sandbox

// The versioned documents "-o json" prints for the sandbox commands whose
// results are not documents themselves.

// DownSchema versions a DownDoc.
const DownSchema = "piceli.sandbox-down/v1"

// DownDoc is what Down did: whether the named sandbox had anything to stop.
type DownDoc struct {
	Schema  string `json:"schema"` // DownSchema
	Name    string `json:"name"`
	Stopped bool   `json:"stopped"` // false: it was not running
}

// BuildSchema versions a BuildDoc.
const BuildSchema = "piceli.sandbox-build/v1"

// BuildDoc is where BuildBinaries left the binaries.
type BuildDoc struct {
	Schema string `json:"schema"` // BuildSchema
	BinDir string `json:"binDir"`
}

// LoadSchema versions a LoadDoc.
const LoadSchema = "piceli.sandbox-load/v1"

// LoadDoc is the images Load imported into the named sandbox's real node.
type LoadDoc struct {
	Schema string   `json:"schema"` // LoadSchema
	Name   string   `json:"name"`
	Images []string `json:"images"`
}
