package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNoRealNode reports that the sandbox has no real node: start it with
// Options.RealNode.
var ErrNoRealNode = errors.New("no real node")

// ErrNotImage reports that a path given to Load is neither an image
// archive nor an OCI image layout.
var ErrNotImage = errors.New("not an image archive or OCI image layout")

// Load imports the image at path into the real node's containerd, in the
// namespace the kubelet uses, so that pods with imagePullPolicy Never or
// IfNotPresent find it. path is an archive (`docker save` output, an OCI
// archive, maybe gzip-compressed) or an OCI image layout directory, which
// is streamed as an archive without writing one to disk. It returns the
// image names imported: a docker archive's RepoTags, a layout's full
// references in org.opencontainers.image.ref.name. Importing the same
// image again is harmless.
func (s *Sandbox) Load(ctx context.Context, path string) ([]string, error) {
	src, err := openImage(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	node, ok, err := s.RealNode()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("load %s: sandbox %q has %w: start it with `piceli sandbox up --name %[2]s --real-node`", path, s.layout.Name, ErrNoRealNode)
	}
	if _, err := s.ownPID(componentContainerd); err != nil {
		return nil, fmt.Errorf("load %s: the real node's %w", path, err)
	}
	ctr, err := exec.LookPath("ctr")
	if err != nil {
		return nil, fmt.Errorf("load %s: %w: ctr not found on PATH: install the Debian package containerd", path, ErrRealNodeUnavailable)
	}
	names, err := ctrImport(ctx, ctr, node.Containerd, src)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("load %s: no named image in it (a docker archive names images in RepoTags, an OCI layout by a full reference in org.opencontainers.image.ref.name)", path)
	}
	return names, nil
}

// openImage opens an image archive, or streams an OCI layout directory as
// a tar archive.
func openImage(path string) (io.ReadCloser, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "oci-layout")); err != nil {
			return nil, fmt.Errorf("image %s: %w: a directory without an oci-layout file", path, ErrNotImage)
		}
		return tarDir(path), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	if err := checkArchive(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	return f, nil
}

// checkArchive reads the start of f to tell a tar archive (or a gzip or
// zstd stream, which ctr decompresses) from anything else, then rewinds.
func checkArchive(f *os.File) error {
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	head = head[:n]
	ok := bytes.HasPrefix(head, []byte{0x1f, 0x8b}) || bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}) ||
		(len(head) >= 262 && bytes.Equal(head[257:262], []byte("ustar")))
	if !ok {
		return fmt.Errorf("%w: neither tar, gzip nor zstd", ErrNotImage)
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// tarDir streams the directories and regular files under dir as a tar
// archive, paths relative to dir.
func tarDir(dir string) io.ReadCloser {
	r, w := io.Pipe()
	go func() {
		tw := tar.NewWriter(w)
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || path == dir || !(d.IsDir() || d.Type().IsRegular()) {
				return err
			}
			return addToTar(tw, dir, path, d)
		})
		w.CloseWithError(errors.Join(err, tw.Close()))
	}()
	return r
}

func addToTar(tw *tar.Writer, dir, path string, d fs.DirEntry) error {
	fi, err := d.Info()
	if err != nil {
		return err
	}
	hdr, err := tar.FileInfoHeader(fi, "")
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return err
	}
	hdr.Name = filepath.ToSlash(rel)
	if d.IsDir() {
		hdr.Name += "/"
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if d.IsDir() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}
