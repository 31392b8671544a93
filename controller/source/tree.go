package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/publish"
)

// layoutMarker is the file that makes a directory an OCI layout.
const layoutMarker = "oci-layout"

// writeTree writes the tree of commit at p into dir: an OCI layout
// whole (then checked to be a published release), or else its YAML and
// JSON files.
func writeTree(ctx context.Context, commit *object.Commit, p, dir string, o Options) (*Content, error) {
	shown := p
	if shown == "" {
		shown = "."
	}
	root, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", commit.Hash, err)
	}
	if p != "" {
		if root, err = root.Tree(p); err != nil {
			return nil, fmt.Errorf("spec.source.git.path %q: no directory at commit %s", shown, commit.Hash)
		}
	}
	w := &treeWriter{ctx: ctx, dir: dir, maxBytes: o.MaxBytes, maxFiles: o.MaxFiles, base: shown}
	if e, err := root.FindEntry(layoutMarker); err == nil && e.Mode.IsFile() {
		if err := w.tree(root, ""); err != nil {
			return nil, err
		}
		a, err := publish.Fetch(ctx, dir, artifact.RegistryOptions{})
		if err == nil {
			_, err = publish.Decode(a)
		}
		if err != nil {
			return nil, fmt.Errorf("spec.source.git.path %q holds %s but is not a release written by piceli publish: %w", shown, layoutMarker, err)
		}
		return &Content{Artifact: dir}, nil
	}
	w.only = isManifestFile // and hidden files and directories skipped
	if err := w.tree(root, ""); err != nil {
		return nil, err
	}
	if w.files == 0 {
		return nil, fmt.Errorf("spec.source.git.path %q at commit %s holds neither an %s file nor any .yaml, .yml or .json file", shown, commit.Hash, layoutMarker)
	}
	return &Content{Files: dir}, nil
}

func isManifestFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// treeWriter writes regular files of a tree under dir, within bounds.
type treeWriter struct {
	ctx      context.Context
	dir      string
	base     string // the tree's path in the repository, for messages
	only     func(name string) bool
	maxBytes int64
	maxFiles int
	bytes    int64
	files    int
}

func (w *treeWriter) tree(t *object.Tree, rel string) error {
	for _, e := range t.Entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		p := path.Join(rel, e.Name)
		if !safeName(e.Name) {
			return fmt.Errorf("%s: the tree holds an entry named %q, refused", w.base, e.Name)
		}
		if w.only != nil && strings.HasPrefix(e.Name, ".") {
			continue // hidden, as a files composition skips them
		}
		switch {
		case e.Mode == filemode.Dir:
			sub, err := t.Tree(e.Name)
			if err != nil {
				return fmt.Errorf("%s: %w", path.Join(w.base, p), err)
			}
			if err := w.tree(sub, p); err != nil {
				return err
			}
		case e.Mode == filemode.Regular || e.Mode == filemode.Executable || e.Mode == filemode.Deprecated:
			if w.only != nil && !w.only(e.Name) {
				continue
			}
			if err := w.file(t, e, p); err != nil {
				return err
			}
		case e.Mode == filemode.Symlink:
			return fmt.Errorf("%s is a symbolic link: a source holds regular files only", path.Join(w.base, p))
		case e.Mode == filemode.Submodule:
			return fmt.Errorf("%s is a submodule: a source holds regular files only", path.Join(w.base, p))
		default:
			return fmt.Errorf("%s has mode %s: a source holds regular files only", path.Join(w.base, p), e.Mode)
		}
	}
	return nil
}

// safeName is a name that stays one element inside its directory.
func safeName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\\\x00")
}

func (w *treeWriter) file(t *object.Tree, e object.TreeEntry, p string) error {
	shown := path.Join(w.base, p)
	f, err := t.TreeEntryFile(&e)
	if err != nil {
		return fmt.Errorf("%s: %w", shown, err)
	}
	if w.files+1 > w.maxFiles {
		return fmt.Errorf("%s: the source holds more than %d files, the bound", shown, w.maxFiles)
	}
	if f.Size < 0 || w.bytes+f.Size > w.maxBytes {
		return fmt.Errorf("%s: the source's files are over the bound of %d bytes", shown, w.maxBytes)
	}
	target := filepath.Join(w.dir, filepath.FromSlash(p))
	if rel, err := filepath.Rel(w.dir, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s: escapes the directory it is written to, refused", shown)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	r, err := f.Reader()
	if err != nil {
		return fmt.Errorf("%s: %w", shown, err)
	}
	defer r.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	n, err := io.Copy(out, io.LimitReader(r, f.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != f.Size {
		err = errors.New("the blob's size is not the one its header says")
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	w.files++
	w.bytes += n
	return nil
}

// emptyDir removes what a failed Fetch wrote into dir, which it was
// given empty, so no partial revision is left to be mistaken for one.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
