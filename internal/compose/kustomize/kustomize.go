package kustomize

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/refusal"
)

// MaxSize bounds the files of a kustomization's root, summed.
const MaxSize = 32 << 20

// maxFiles bounds the files of a kustomization's root.
const maxFiles = 10000

// Source is one kustomization of a composition.
type Source struct {
	// Path is the directory holding the kustomization file.
	Path string
	// Root is the directory everything the kustomization reads must lie
	// in (bases like ../base included); empty means Path.
	Root string
}

// Render builds the kustomization of src as kustomize build does and
// returns its objects, in kustomize's order, each with an origin naming
// the kustomization. Only the files under Root are visible: they are
// copied into memory (symlinks and special files refused, reads bounded)
// and built there, so a path out of Root finds nothing. A remote base,
// resource or component (a URL or a Git reference) is a refusal, as is
// any build error. Kustomize's plugins, Helm charts included, are off.
func Render(src Source) ([]object.Declared, error) {
	root := src.Root
	if root == "" {
		root = src.Path
	}
	rel, err := inside(root, src.Path)
	if err != nil {
		return nil, err
	}
	mem, err := copyTree(root)
	if err != nil {
		return nil, err
	}
	if err := refuseRemote(mem, src.Path); err != nil {
		return nil, err
	}
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy // as kustomize build orders by default
	k := krusty.MakeKustomizer(opts)
	res, err := k.Run(mem, filepath.Join("/", rel))
	if err != nil {
		return nil, refusal.Errorf("build kustomization %s: %w", src.Path, err)
	}
	out, err := res.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("encode kustomization %s: %w", src.Path, err)
	}
	objs, err := manifest.Decode("kustomization "+src.Path, out)
	if err != nil {
		return nil, refusal.New(err)
	}
	return objs, nil
}

// inside returns path relative to root, refusing a path out of it.
func inside(root, path string) (string, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", refusal.Errorf("kustomization %s is not inside its root %s", path, root)
	}
	return rel, nil
}

// copyTree copies the regular files under root into an in-memory file
// system rooted at "/".
func copyTree(root string) (filesys.FileSystem, error) {
	mem := filesys.MakeFsInMemory()
	budget, count := int64(MaxSize), 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (symlinks are refused)", rel)
		}
		if count++; count > maxFiles {
			return fmt.Errorf("more than %d files", maxFiles)
		}
		data, err := inputfile.ReadNoFollow(path, budget)
		if errors.Is(err, inputfile.ErrTooLarge) {
			return fmt.Errorf("larger than %d MiB", MaxSize>>20)
		}
		if err != nil {
			return err
		}
		budget -= int64(len(data))
		return mem.WriteFile(filepath.Join("/", rel), data)
	})
	if err != nil {
		return nil, refusal.Errorf("read kustomization root %s: %w", root, err)
	}
	return mem, nil
}

// refuseRemote refuses a remote entry in any kustomization file of mem.
func refuseRemote(mem filesys.FileSystem, path string) error {
	return mem.Walk("/", func(p string, info fs.FileInfo, err error) error {
		if err != nil || info.IsDir() || !isKustomizationFile(p) {
			return err
		}
		data, err := mem.ReadFile(p)
		if err != nil {
			return err
		}
		var k struct {
			Resources  []string `json:"resources"`
			Bases      []string `json:"bases"`
			Components []string `json:"components"`
		}
		if err := yaml.Unmarshal(data, &k); err != nil {
			return refusal.Errorf("kustomization %s: %s: %w", path, p, err)
		}
		for _, e := range append(append(k.Resources, k.Bases...), k.Components...) {
			if isRemote(e) && !mem.Exists(filepath.Join(filepath.Dir(p), e)) {
				return refusal.Errorf("kustomization %s: %s names the remote %q; Piceli fetches nothing at render time: vendor it under the kustomization's root", path, strings.TrimPrefix(p, "/"), e)
			}
		}
		return nil
	})
}

func isKustomizationFile(p string) bool {
	base := filepath.Base(p)
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		if base == n {
			return true
		}
	}
	return false
}

// isRemote reports whether a kustomization entry names something remote:
// a URL, an scp-like Git address, or a host path such as github.com/x/y.
func isRemote(entry string) bool {
	if strings.Contains(entry, "://") || strings.HasPrefix(entry, "git@") || strings.Contains(entry, "?ref=") || strings.Contains(entry, "//") {
		return true
	}
	first, _, _ := strings.Cut(entry, "/")
	return strings.Contains(first, ".") && first != "." && first != ".." && !strings.HasSuffix(first, ".yaml") && !strings.HasSuffix(first, ".yml") && !strings.HasSuffix(first, ".json") && strings.Count(entry, "/") >= 2
}
