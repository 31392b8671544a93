package artifact

import "github.com/pynenc/piceli/specerr"

// SpecError is one problem in a build.toml or its lock file: the file as
// given, the 1-based line (0 when unknown), the dotted key (empty for the
// whole file) and what is wrong. It formats as "file:line: key: message".
type SpecError = specerr.Error
