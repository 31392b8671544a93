// Package source fetches the revisions a Release follows. A Source resolves
// its selector (a tag, a semantic version range, a branch, ...) to an
// immutable revision (a digest or a commit) and fetches exactly that
// revision into a directory. Nothing from a source is ever compiled or run:
// a revision is a directory of manifests or a published release.
package source

import (
	"context"
	"fmt"
)

// Revision is one immutable revision of a source.
type Revision struct {
	// ID is the revision itself: sha256:<64 hex> for an OCI artifact, the
	// 40-hex commit for Git.
	ID string
	// Ref is what was resolved to it (a tag, a branch, the highest tag in
	// a range); empty when the Release pins ID.
	Ref string
}

// String is "REF@ID", or ID alone when there is no Ref.
func (r Revision) String() string {
	if r.Ref == "" {
		return r.ID
	}
	return r.Ref + "@" + r.ID
}

// Content is one fetched revision: exactly one of Artifact and Files is set.
type Content struct {
	Revision Revision
	// Artifact is the directory of an OCI layout holding a release written
	// by `piceli publish` (release.Options.Artifact takes it).
	Artifact string
	// Files is a directory of YAML or JSON manifests (a files composition).
	Files string
}

// Source is where a Release's revisions come from.
type Source interface {
	// Resolve returns the revision the selector names now.
	Resolve(ctx context.Context) (Revision, error)
	// Fetch writes the content of rev under dir, an existing empty
	// directory, and says what it is.
	Fetch(ctx context.Context, rev Revision, dir string) (*Content, error)
}

// Credentials are the data of the Secret a Release names for its source.
// Their values never appear in an error, a log line or a status.
type Credentials map[string][]byte

// SpecError is a Release's source that cannot be used as written: the
// controller reports it as Stalled until the Release changes.
type SpecError struct {
	Field  string // the field of the Release, as spec.source.oci.tag
	Reason string
}

func (e *SpecError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }
