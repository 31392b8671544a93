package source

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/pynenc/piceli/api/v1alpha1"
)

// gitSource follows a branch, a tag or a commit of a Git repository.
type gitSource struct {
	spec     v1alpha1.GitSource
	selector string // branch, tag or commit
	path     string // clean, relative, "" for the root
	auth     transport.AuthMethod
	opts     Options
	scrub    scrubber
}

func newGit(s v1alpha1.GitSource, creds Credentials, opts Options) (*gitSource, error) {
	ssh, err := checkGitURL(s.URL)
	if err != nil {
		return nil, err
	}
	sel, err := oneSelector("spec.source.git", map[string]string{"branch": s.Branch, "tag": s.Tag, "commit": s.Commit})
	if err != nil {
		return nil, err
	}
	g := &gitSource{spec: s, selector: sel, opts: opts, scrub: newScrubber(creds)}
	switch sel {
	case "branch":
		if !plumbing.NewBranchReferenceName(s.Branch).IsBranch() || !validRefName(s.Branch) {
			return nil, &SpecError{Field: "spec.source.git.branch", Reason: "not a valid branch name"}
		}
	case "tag":
		if !validRefName(s.Tag) {
			return nil, &SpecError{Field: "spec.source.git.tag", Reason: "not a valid tag name"}
		}
	case "commit":
		if !commitRE.MatchString(s.Commit) {
			return nil, &SpecError{Field: "spec.source.git.commit", Reason: "want the 40 lowercase hex digits of a commit"}
		}
	}
	if g.path, err = checkGitPath(s.Path); err != nil {
		return nil, err
	}
	if ssh {
		g.auth, err = sshAuth(s.URL, creds)
	} else {
		installBoundedHTTP()
		g.auth, err = httpAuth(creds)
	}
	if err != nil {
		return nil, err
	}
	return g, nil
}

// validRefName is a conservative check of a branch or tag name
// (git check-ref-format, minus what a name never needs).
func validRefName(n string) bool {
	if n == "" || strings.HasPrefix(n, "-") || strings.HasPrefix(n, "/") || strings.HasSuffix(n, "/") ||
		strings.HasSuffix(n, ".lock") || strings.HasSuffix(n, ".") || strings.Contains(n, "..") ||
		strings.Contains(n, "//") || strings.Contains(n, "@{") || strings.HasPrefix(n, "refs/") {
		return false
	}
	for _, r := range n {
		if r < 0x21 || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) {
			return false
		}
	}
	return true
}

func (g *gitSource) refName() plumbing.ReferenceName {
	if g.selector == "tag" {
		return plumbing.NewTagReferenceName(g.spec.Tag)
	}
	return plumbing.NewBranchReferenceName(g.spec.Branch)
}

func (g *gitSource) ref() string {
	if g.selector == "tag" {
		return g.spec.Tag
	}
	return g.spec.Branch
}

// Resolve lists the remote's references and returns the commit the
// branch or tag names; a commit is returned as it is.
func (g *gitSource) Resolve(ctx context.Context) (Revision, error) {
	if g.selector == "commit" {
		return Revision{ID: g.spec.Commit}, nil
	}
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{g.spec.URL}})
	refs, err := rem.ListContext(withBound(ctx, g.opts.MaxBytes), &git.ListOptions{Auth: g.auth, PeelingOption: git.AppendPeeled})
	if err != nil {
		return Revision{}, g.scrub.wrap(fmt.Errorf("list the references of %s: %w", stripURL(g.spec.URL), err))
	}
	want := g.refName()
	var direct, peeled *plumbing.Reference
	for _, r := range refs {
		switch r.Name() {
		case want:
			direct = r
		case want + "^{}":
			peeled = r
		}
	}
	if peeled != nil {
		direct = peeled
	}
	if direct == nil || direct.Type() != plumbing.HashReference {
		return Revision{}, g.scrub.wrap(fmt.Errorf("%s %q not found in %s", g.selector, g.ref(), stripURL(g.spec.URL)))
	}
	return Revision{ID: direct.Hash().String(), Ref: g.ref()}, nil
}

// Fetch clones exactly the commit rev.ID and writes the tree at Path
// into dir.
func (g *gitSource) Fetch(ctx context.Context, rev Revision, dir string) (*Content, error) {
	if !commitRE.MatchString(rev.ID) {
		return nil, fmt.Errorf("revision %q is not a 40 hex commit", rev.ID)
	}
	commit, err := g.commit(ctx, plumbing.NewHash(rev.ID))
	if err != nil {
		return nil, g.scrub.wrap(err)
	}
	c, err := writeTree(ctx, commit, g.path, dir, g.opts)
	if err != nil {
		return nil, g.scrub.wrap(errors.Join(err, emptyDir(dir)))
	}
	c.Revision = rev
	return c, nil
}

// commit clones the repository into memory and returns the commit id,
// peeling an annotated tag. A branch or tag is cloned shallow; when it
// no longer names id (it moved since Resolve) or for a pinned commit the
// whole repository is cloned.
func (g *gitSource) commit(ctx context.Context, id plumbing.Hash) (*object.Commit, error) {
	if g.selector != "commit" {
		repo, err := g.clone(ctx, &git.CloneOptions{ReferenceName: g.refName(), SingleBranch: true, Depth: 1, Tags: git.NoTags})
		if err == nil {
			if c, err := peelCommit(repo, id); err == nil {
				return c, nil
			}
		} else if ctx.Err() != nil {
			return nil, err
		}
	}
	repo, err := g.clone(ctx, &git.CloneOptions{Tags: git.AllTags})
	if err != nil {
		return nil, err
	}
	c, err := peelCommit(repo, id)
	if err != nil {
		return nil, fmt.Errorf("commit %s not found in %s: %w", id, stripURL(g.spec.URL), err)
	}
	return c, nil
}

func (g *gitSource) clone(ctx context.Context, o *git.CloneOptions) (*git.Repository, error) {
	o.URL, o.Auth, o.NoCheckout = g.spec.URL, g.auth, true
	repo, err := git.CloneContext(withBound(ctx, g.opts.MaxBytes), newBoundedStorage(g.opts.MaxBytes), nil, o)
	if err != nil {
		return nil, fmt.Errorf("clone %s: %w", stripURL(g.spec.URL), err)
	}
	return repo, nil
}

// peelCommit is the commit id names, through an annotated tag if it is one.
func peelCommit(repo *git.Repository, id plumbing.Hash) (*object.Commit, error) {
	if t, err := repo.TagObject(id); err == nil {
		return t.Commit()
	}
	c, err := repo.CommitObject(id)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, fmt.Errorf("no such commit")
	}
	return c, err
}
