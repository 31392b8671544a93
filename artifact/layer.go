package artifact

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/pynenc/piceli/internal/inputfile"
)

// fileEntry is one entry of a layer: a directory, a file (its content read
// from src) or a symbolic link.
type fileEntry struct {
	name string // slash path in the image, without the leading "/"
	dir  bool
	src  string // file content, for a file
	link string // target, for a symbolic link
	exec bool
}

// maxLayerFile bounds one file a build puts in a layer, which is built in
// memory.
const maxLayerFile = 1 << 30

// readInput reads one input file of a layer: a regular file (an input
// that was a symlink is stored as one and never read).
func readInput(path string) ([]byte, error) {
	return inputfile.ReadNoFollow(path, maxLayerFile)
}

// layerEntries expands Entries into the files and links they put in a
// layer; a directory Src is copied recursively below Dst.
func layerEntries(entries []Entry) ([]fileEntry, error) {
	var out []fileEntry
	for _, e := range entries {
		err := walkTree(e.Src, func(p string, d fs.DirEntry) error {
			rel, err := filepath.Rel(e.Src, p)
			if err != nil {
				return err
			}
			fe, err := newFileEntry(path.Join(e.Dst, filepath.ToSlash(rel)), p, d)
			out = append(out, fe)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Key, err)
		}
	}
	return out, nil
}

func newFileEntry(dst, src string, d fs.DirEntry) (fileEntry, error) {
	fe := fileEntry{name: strings.TrimPrefix(dst, "/"), src: src}
	info, err := d.Info()
	if err != nil {
		return fe, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		fe.src = ""
		fe.link, err = os.Readlink(src)
		return fe, err
	}
	fe.exec = info.Mode()&0o111 != 0
	return fe, nil
}

// staticLayer is a gzip-compressed layer held in memory.
type staticLayer struct {
	compressed []byte
	digest     v1.Hash
	diffID     v1.Hash
	size       int64
}

// buildLayer writes entries as a tar archive whose bytes depend only on
// the entries: sorted names, parent directories made explicit, owner root,
// modes 0755 or 0644, every time set to epoch. A name given twice is an
// error.
func buildLayer(entries []fileEntry, epoch time.Time) (*staticLayer, error) {
	all, err := withParents(entries)
	if err != nil {
		return nil, err
	}
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	for _, e := range all {
		if err := writeEntry(tw, e, epoch); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return compressLayer(tarBuf.Bytes())
}

// withParents adds the missing parent directories and sorts by name.
func withParents(entries []fileEntry) ([]fileEntry, error) {
	seen := map[string]bool{}
	var all []fileEntry
	for _, e := range entries {
		if seen[e.name] {
			return nil, fmt.Errorf("/%s is put into the layer twice", e.name)
		}
		seen[e.name] = true
		all = append(all, e)
	}
	for _, e := range entries {
		for dir := path.Dir(e.name); dir != "." && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
			all = append(all, fileEntry{name: dir, dir: true})
		}
	}
	slices.SortFunc(all, func(a, b fileEntry) int { return strings.Compare(a.name, b.name) })
	return all, nil
}

func writeEntry(tw *tar.Writer, e fileEntry, epoch time.Time) error {
	hdr := &tar.Header{Name: e.name, ModTime: epoch, Mode: 0o644, Format: tar.FormatPAX}
	var content []byte
	switch {
	case e.dir:
		hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, e.name+"/", 0o755
	case e.link != "":
		hdr.Typeflag, hdr.Linkname, hdr.Mode = tar.TypeSymlink, e.link, 0o777
	default:
		data, err := readInput(e.src)
		if err != nil {
			return err
		}
		content = data
		hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(data))
		if e.exec {
			hdr.Mode = 0o755
		}
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("write /%s into a layer: %w", e.name, err)
	}
	_, err := tw.Write(content)
	return err
}

// compressLayer gzips an uncompressed layer at a fixed level, with no name
// or time in the gzip header.
func compressLayer(tarBytes []byte) (*staticLayer, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(tarBytes); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &staticLayer{
		compressed: gz.Bytes(),
		digest:     sha256Hash(gz.Bytes()),
		diffID:     sha256Hash(tarBytes),
		size:       int64(gz.Len()),
	}, nil
}

func sha256Hash(b []byte) v1.Hash {
	sum := sha256.Sum256(b)
	return v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}
}

// The v1.Layer methods of staticLayer.
func (l *staticLayer) Digest() (v1.Hash, error) { return l.digest, nil }
func (l *staticLayer) DiffID() (v1.Hash, error) { return l.diffID, nil }
func (l *staticLayer) Size() (int64, error)     { return l.size, nil }
func (l *staticLayer) MediaType() (types.MediaType, error) {
	return types.OCILayer, nil
}
func (l *staticLayer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.compressed)), nil
}
func (l *staticLayer) Uncompressed() (io.ReadCloser, error) {
	return gzip.NewReader(bytes.NewReader(l.compressed))
}
