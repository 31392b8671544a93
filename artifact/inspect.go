package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/pynenc/piceli/refusal"
)

// Report is what Inspect found in a layout.
type Report struct {
	Layout   string
	Images   []ImageReport
	Blobs    []BlobReport // every blob referenced, by digest
	Problems []string     // corrupt, missing or mis-sized blobs; empty when the layout is sound
	// Unreferenced lists blob files no image uses: not damage, but not
	// part of any image either.
	Unreferenced []string
	// StoredBytes and SharedBytes are as in BuildResult.
	StoredBytes int64
	SharedBytes int64
}

// ImageReport is one image of an inspected layout.
type ImageReport struct {
	Name      string // ref name annotation
	Reference string // io.containerd.image.name annotation
	Digest    string
	Platform  string
	Size      int64
	Layers    []string
}

// BlobReport is one blob: its digest and size, its role (manifest, config,
// layer) and how many images use it.
type BlobReport struct {
	Digest string
	Size   int64
	Role   string
	Images int
}

// CorruptError says that a layout has blobs that are missing, corrupt or
// of the wrong size.
type CorruptError struct {
	Layout   string
	Problems []string
}

// Error names the layout and every damaged blob.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("OCI layout %s is damaged: %s", e.Layout, strings.Join(e.Problems, "; "))
}

// Is reports that a damaged layout is a refusal (refusal.Is).
func (e *CorruptError) Is(target error) bool { return target == refusal.ErrRefused }

// Inspect reads the OCI layout at dir, verifies the digest and size of
// every blob its images reference, and lists images, layers and which
// layers are shared. Damage is listed in Report.Problems and also returned
// as a *CorruptError; other errors (no layout there) return no report.
func Inspect(dir string) (*Report, error) {
	idx, err := readIndex(dir)
	if err != nil {
		return nil, err
	}
	in := &inspector{dir: dir, report: &Report{Layout: dir}, blobs: map[string]*BlobReport{}, checked: map[string]bool{}}
	for _, d := range idx.Manifests {
		in.image(d)
	}
	in.unreferenced()
	r := in.report
	for _, k := range sortedKeys(in.blobs) {
		b := in.blobs[k]
		r.Blobs = append(r.Blobs, *b)
		r.StoredBytes += b.Size
		if b.Images > 1 {
			r.SharedBytes += b.Size
		}
	}
	if len(r.Problems) > 0 {
		return r, &CorruptError{Layout: dir, Problems: r.Problems}
	}
	return r, nil
}

type inspector struct {
	dir     string
	report  *Report
	blobs   map[string]*BlobReport
	checked map[string]bool // blobs whose content was verified (or found bad)
}

func (in *inspector) problem(format string, args ...any) {
	in.report.Problems = append(in.report.Problems, fmt.Sprintf(format, args...))
}

func (in *inspector) image(d v1.Descriptor) {
	ir := ImageReport{Name: d.Annotations[AnnotationRefName], Reference: d.Annotations[AnnotationImageName], Digest: d.Digest.String(), Size: d.Size}
	if d.Platform != nil {
		ir.Platform = d.Platform.OS + "/" + d.Platform.Architecture
	}
	defer func() { in.report.Images = append(in.report.Images, ir) }()
	raw, ok := in.blob(d, "manifest", true)
	if !ok {
		return
	}
	var m v1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		in.problem("manifest %s of image %s: %v", d.Digest, ir.Name, err)
		return
	}
	in.blob(m.Config, "config", false)
	ir.Size += m.Config.Size
	for _, l := range m.Layers {
		in.blob(l, "layer", false)
		ir.Size += l.Size
		ir.Layers = append(ir.Layers, l.Digest.String())
	}
}

// blob verifies the blob d (once per layout), counts its use and returns
// its content when keep is set.
func (in *inspector) blob(d v1.Descriptor, role string, keep bool) ([]byte, bool) {
	key := d.Digest.String()
	if b := in.blobs[key]; b != nil {
		b.Images++
	} else {
		in.blobs[key] = &BlobReport{Digest: key, Size: d.Size, Role: role, Images: 1}
	}
	if in.checked[key] && !keep {
		return nil, true
	}
	in.checked[key] = true
	data, err := verifyBlob(in.dir, d, keep)
	if err != nil {
		in.problem("%s %s: %v", role, key, err)
		return nil, false
	}
	return data, true
}

// verifyBlob checks that the blob d is in the layout at dir with d's size
// and digest, and returns its content when keep is set.
func verifyBlob(dir string, d v1.Descriptor, keep bool) ([]byte, error) {
	if d.Digest.Algorithm != "sha256" || len(d.Digest.Hex) != 64 {
		return nil, fmt.Errorf("unsupported digest %q", d.Digest)
	}
	f, err := openBlob(dir, d.Digest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("missing (no file blobs/sha256/%s)", d.Digest.Hex)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	var kept strings.Builder
	w := io.Writer(h)
	if keep {
		w = io.MultiWriter(h, &kept)
	}
	n, err := io.Copy(w, io.LimitReader(f, d.Size+1)) // a longer file is corrupt: read no more
	if err != nil {
		return nil, err
	}
	if n != d.Size {
		return nil, fmt.Errorf("corrupt: %d bytes, want %d", n, d.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.Digest.Hex {
		return nil, fmt.Errorf("corrupt: content has digest sha256:%s", got)
	}
	return []byte(kept.String()), nil
}

// unreferenced lists blob files no image uses.
func (in *inspector) unreferenced() {
	entries, err := os.ReadDir(filepath.Join(in.dir, "blobs", "sha256"))
	if err != nil {
		return
	}
	for _, e := range entries {
		if in.blobs["sha256:"+e.Name()] == nil {
			in.report.Unreferenced = append(in.report.Unreferenced, "sha256:"+e.Name())
		}
	}
	slices.Sort(in.report.Unreferenced)
}
