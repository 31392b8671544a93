package chart

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/ignore"

	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/refusal"
)

// MaxSize bounds a chart: a .tgz file, or the sum of the files of a chart
// directory. Helm's own loader bounds a decompressed archive at 100 MiB.
const MaxSize = 32 << 20

// maxFiles bounds the files of a chart directory.
const maxFiles = 10000

// Digest returns the digest of the chart at path, "sha256:" and 64 hex
// digits: of the file's bytes for a .tgz, and for a directory of every
// file Helm would load from it (.helmignore honoured), in path order, each
// as its slash-separated path, a NUL, its length, a NUL and its content.
// A symlink or special file inside a directory is refused.
func Digest(path string) (string, error) {
	d, _, err := read(path)
	return d, err
}

// Load reads the chart at path, a .tgz file or a directory, checks it has
// the digest want, and loads it. A digest mismatch, a symlink inside the
// directory, an entry whose path leaves the chart, or a chart over MaxSize
// is a refusal naming path; nothing outside path is read.
func Load(path, want string) (*chartv2.Chart, error) {
	got, files, err := read(path)
	if err != nil {
		return nil, err
	}
	if got != want {
		return nil, refusal.Errorf("chart %s has digest %s, the release pins %s", path, got, want)
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, refusal.Errorf("load chart %s: %w", path, err)
	}
	return ch, nil
}

// read returns the digest and the files of the chart at path.
func read(path string) (string, []*archive.BufferedFile, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", nil, refusal.Errorf("read chart: %w", err)
	}
	if info.IsDir() {
		return readDir(path)
	}
	data, err := inputfile.Read(path, MaxSize)
	if err != nil {
		return "", nil, refusal.Errorf("read chart: %w", err)
	}
	files, err := archive.LoadArchiveFiles(bytes.NewReader(data))
	if err != nil {
		return "", nil, refusal.Errorf("read chart %s: %w", path, err)
	}
	if err := checkNames(files); err != nil {
		return "", nil, refusal.Errorf("read chart %s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), files, nil
}

// checkNames refuses a file whose name is absolute or leaves the chart.
func checkNames(files []*archive.BufferedFile) error {
	for _, f := range files {
		if !fs.ValidPath(f.Name) {
			return fmt.Errorf("entry %q leaves the chart", f.Name)
		}
	}
	return nil
}

// readDir reads a chart directory as Helm's directory loader would, but
// refusing symlinks and special files (Helm follows symlinks, even out of
// the chart) and bounding what it reads.
func readDir(dir string) (string, []*archive.BufferedFile, error) {
	rules, err := ignoreRules(dir)
	if err != nil {
		return "", nil, err
	}
	w := &walker{dir: dir, rules: rules, budget: MaxSize}
	if err := filepath.WalkDir(dir, w.visit); err != nil {
		return "", nil, refusal.Errorf("read chart %s: %w", dir, err)
	}
	sort.Slice(w.files, func(i, j int) bool { return w.files[i].Name < w.files[j].Name })
	return dirDigest(w.files), w.files, nil
}

// ignoreRules reads the chart's .helmignore, bounded, with Helm's defaults.
func ignoreRules(dir string) (*ignore.Rules, error) {
	rules := ignore.Empty()
	data, err := inputfile.ReadNoFollow(filepath.Join(dir, ignore.HelmIgnore), 1<<20)
	if err == nil {
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, refusal.Errorf("read chart %s: %s: %w", dir, ignore.HelmIgnore, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, refusal.Errorf("read chart %s: %w", dir, err)
	}
	rules.AddDefaults()
	return rules, nil
}

// walker collects the files of a chart directory.
type walker struct {
	dir    string
	rules  *ignore.Rules
	budget int64
	files  []*archive.BufferedFile
}

func (w *walker) visit(path string, d fs.DirEntry, err error) error {
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(w.dir, path)
	if err != nil || rel == "." {
		return err
	}
	rel = filepath.ToSlash(rel)
	info, err := d.Info()
	if err != nil {
		return err
	}
	if w.rules.Ignore(rel, info) {
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	}
	if d.IsDir() {
		return nil
	}
	if !d.Type().IsRegular() {
		return fmt.Errorf("%s is not a regular file (symlinks are refused)", rel)
	}
	return w.add(path, rel)
}

// add reads one file within the remaining budget.
func (w *walker) add(path, rel string) error {
	if len(w.files) >= maxFiles {
		return fmt.Errorf("more than %d files", maxFiles)
	}
	data, err := inputfile.ReadNoFollow(path, w.budget)
	if errors.Is(err, inputfile.ErrTooLarge) {
		return fmt.Errorf("larger than %d MiB", MaxSize>>20)
	}
	if err != nil {
		return err
	}
	w.budget -= int64(len(data))
	w.files = append(w.files, &archive.BufferedFile{Name: rel, Data: data})
	return nil
}

// dirDigest hashes sorted files as Digest documents.
func dirDigest(files []*archive.BufferedFile) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
