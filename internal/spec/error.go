package spec

import "github.com/pynenc/piceli/internal/specerr"

// Error is one problem in a release.toml: its file as given to Load or
// Parse, line, dotted key and message (see specerr.Error).
type Error = specerr.Error
