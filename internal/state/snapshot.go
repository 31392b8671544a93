package state

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/statedir"
)

// syncFile records, in the state directory, which snapshot the cache last
// agreed with. It is the cache's own bookkeeping and never shared.
const syncFile = statedir.Sync

// local names the files of a state directory that belong to this machine
// (statedir.Layout): the file lock and its holder, stop requests and the
// sync record.
func local(rel string) bool { return !statedir.Shared(rel) }

// File is one file of a snapshot: its slash-separated path under the state
// directory and its content.
type File struct {
	Path string
	Data []byte
}

// Files reads the shared files of the state directory dir, sorted by path.
// A missing dir has none. Machine-local files (the file lock, stop
// requests, the sync record) are left out.
func Files(dir string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return fs.SkipAll
		}
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || local(filepath.ToSlash(rel)) || strings.Contains(d.Name(), ".tmp") {
			return err
		}
		data, err := statedir.ReadFile(path)
		files = append(files, File{Path: filepath.ToSlash(rel), Data: data})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read state directory %s: %w", dir, err)
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// Pack encodes files as a gzip-compressed tar with fixed times and modes,
// so the same files always give the same bytes (and digest).
func Pack(files []File) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		h := &tar.Header{Name: f.Path, Mode: 0o600, Size: int64(len(f.Data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("pack %s: %w", f.Path, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, fmt.Errorf("pack %s: %w", f.Path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unpack decodes a snapshot made by Pack. A path that would leave the
// state directory is refused.
func Unpack(data []byte) ([]File, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("unpack state snapshot: %w", err)
	}
	tr := tar.NewReader(zr)
	var files []File
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("unpack state snapshot: %w", err)
		}
		if !fs.ValidPath(h.Name) || h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("unpack state snapshot: refusing entry %q", h.Name)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("unpack state snapshot: %s: %w", h.Name, err)
		}
		files = append(files, File{Path: h.Name, Data: body})
	}
}

// Digest is the hex SHA-256 of data, as manifests record it.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Merge writes files into the state directory dir, owner-only, and
// returns how many it changed. The snapshot wins, except where the local
// file already extends the snapshot's content (a journal this machine
// appended to since the last push: append-only files only grow), and
// except a latest-run pointer naming a run that started after the
// snapshot's latest run (laterRun). Files not in the snapshot are kept
// (they were made here and not pushed yet), except those listed in gone:
// files an earlier pull brought that the shared state no longer holds
// (removed by retention elsewhere).
func Merge(dir string, files []File, gone []string) (int, error) {
	changed := 0
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		cur, err := statedir.ReadFile(path)
		if err == nil && (bytes.HasPrefix(cur, f.Data) || f.Path == latestRun && keepLatest(dir, files, cur, f.Data)) {
			continue
		}
		if err := writePrivate(path, f.Data); err != nil {
			return changed, err
		}
		changed++
	}
	for _, p := range gone {
		err := os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return changed, fmt.Errorf("remove %s from the state cache: %w", p, err)
		}
	}
	return changed, nil
}

// writePrivate replaces path atomically, creating its directories
// owner-only.
func writePrivate(path string, data []byte) error {
	if err := atomicfile.MkdirPrivate(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write state cache %s: %w", path, err)
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("write state cache %s: %w", path, err)
	}
	return nil
}
