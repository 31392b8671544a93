package observe

import (
	pub "github.com/pynenc/piceli/archive"
	"github.com/pynenc/piceli/internal/archive"
	"github.com/pynenc/piceli/refusal"
)

// Archive is a session archive: what one run of a release declared and
// how it went ("schema": "piceli.session-archive/v1"). Every run of the
// release package writes one; it holds references and keyed digests,
// never secret values or manifests.
type Archive = pub.Archive

// ArchivedObject is one object of an Archive.
type ArchivedObject = pub.Object

// ReadArchive reads and checks a session archive file. A file that is not
// one is a refusal (refusal.Is) naming the file (and line or key).
func ReadArchive(path string) (*Archive, error) {
	if path == "" {
		return nil, badInput("a session archive file is required (piceli release archive writes one)")
	}
	a, err := archive.Read(path)
	if err != nil {
		return nil, refusal.New(err)
	}
	return a, nil
}

// ArchiveSchema is the schema of a session archive document.
const ArchiveSchema = archive.Schema
