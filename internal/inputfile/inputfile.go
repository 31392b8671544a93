package inputfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// The bounds each kind of input is read with. A file over its bound is
// refused with ErrTooLarge; none of them is near a real file's size.
const (
	// SpecLimit bounds release.toml, build.toml, build.lock, YAML
	// compositions and import inputs.
	SpecLimit = 8 << 20
	// KubeconfigLimit bounds a kubeconfig file.
	KubeconfigLimit = 4 << 20
	// CredentialLimit bounds a file a kubeconfig names (token, client
	// certificate and key, CA bundle) and a passphrase file.
	CredentialLimit = 1 << 20
	// DataLimit bounds a ConfigMap or Secret data file, which the API
	// server caps at about 1 MiB anyway.
	DataLimit = 1 << 20
	// MetadataLimit bounds an OCI layout's index.json and the manifests and
	// configs it names.
	MetadataLimit = 4 << 20
)

// ErrNotRegular marks a file refused because it is not a regular file: a
// FIFO, a device such as /dev/zero, a socket, a directory, or a symlink
// where none is expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge marks a file refused because it is over its bound.
var ErrTooLarge = errors.New("file too large")

// Options say how Open treats the last element of the path. The zero value
// follows a symlink to a regular file.
type Options struct {
	// NoFollow refuses a symlink (O_NOFOLLOW): for files Piceli itself
	// lays out, such as a layout's blobs, where none belongs.
	NoFollow bool
}

// Open opens the regular file at path for reading. The open never blocks
// (a FIFO is opened non-blocking) and the opened descriptor, not the path,
// is checked, so a FIFO, a device, a directory or (with NoFollow) a
// symlink is refused with ErrNotRegular and nothing is read from it.
func Open(path string, opts Options) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if opts.NoFollow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if errors.Is(err, syscall.ELOOP) && opts.NoFollow {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("a symlink: %w", ErrNotRegular)}
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%s: %w", describe(st.Mode()), ErrNotRegular)}
	}
	return f, nil
}

// describe names a non-regular file mode for an error.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "a special file"
}

// Read returns the content of the regular file at path (symlinks
// followed), refusing one over limit bytes with ErrTooLarge and anything
// that is not a regular file with ErrNotRegular. Errors name the path.
func Read(path string, limit int64) ([]byte, error) {
	return read(path, limit, Options{})
}

// ReadNoFollow is Read refusing a symlink as the path's last element, for
// files Piceli lays out itself.
func ReadNoFollow(path string, limit int64) ([]byte, error) {
	return read(path, limit, Options{NoFollow: true})
}

func read(path string, limit int64, opts Options) ([]byte, error) {
	f, err := Open(path, opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	if size > limit {
		return nil, tooLarge(path, limit)
	}
	// Sized as the file is, as os.ReadFile does, and read to its end (or
	// one byte past limit) should it have grown since.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

func tooLarge(path string, limit int64) error {
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("over %d bytes: %w", limit, ErrTooLarge)}
}

// Reader returns r read in chunks that each first check ctx, so a long
// read (a multi-gigabyte blob being hashed or copied) ends with ctx's
// error soon after ctx ends.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

// chunk bounds one read of a ctxReader, so ctx is checked at least once
// per chunk.
const chunk = 1 << 20

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > chunk {
		p = p[:chunk]
	}
	return c.r.Read(p)
}
