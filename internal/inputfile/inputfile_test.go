package inputfile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fixture lays out one file of each kind Read meets in dir.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "regular"), []byte("hello"), 0o600))
	must(os.WriteFile(filepath.Join(dir, "big"), bytes.Repeat([]byte("x"), 100), 0o600))
	must(os.Symlink(filepath.Join(dir, "regular"), filepath.Join(dir, "link")))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero-link")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600))
	must(os.Symlink(filepath.Join(dir, "fifo"), filepath.Join(dir, "fifo-link")))
	must(os.Mkdir(filepath.Join(dir, "dir"), 0o700))
	return dir
}

func TestRead(t *testing.T) {
	dir := fixture(t)
	tests := []struct {
		name     string
		path     string
		opts     Options
		want     string
		wantErr  error
		inErrMsg string
	}{
		{name: "a regular file is read whole", path: "regular", want: "hello"},
		{name: "a symlink to a regular file is followed by default", path: "link", want: "hello"},
		{name: "a symlink is refused with NoFollow", path: "link", opts: Options{NoFollow: true}, wantErr: ErrNotRegular, inErrMsg: "a symlink"},
		{name: "a FIFO is refused without blocking", path: "fifo", wantErr: ErrNotRegular, inErrMsg: "a FIFO"},
		{name: "a symlink to a FIFO is refused without blocking", path: "fifo-link", wantErr: ErrNotRegular, inErrMsg: "a FIFO"},
		{name: "a symlink to /dev/zero is refused", path: "zero-link", wantErr: ErrNotRegular, inErrMsg: "a device"},
		{name: "/dev/zero itself is refused", path: "/dev/zero", wantErr: ErrNotRegular},
		{name: "a directory is refused", path: "dir", wantErr: ErrNotRegular, inErrMsg: "a directory"},
		{name: "a file over its bound is refused", path: "big", wantErr: ErrTooLarge, inErrMsg: "over 10 bytes"},
		{name: "a missing file is an error naming it", path: "absent", wantErr: os.ErrNotExist, inErrMsg: "absent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			got, err := read(path, 10, tt.opts)
			if !errors.Is(err, tt.wantErr) || (err == nil && string(got) != tt.want) {
				t.Fatalf("read(%s) = %q, %v; want %q, %v", tt.path, got, err, tt.want, tt.wantErr)
			}
			if err != nil && (!strings.Contains(err.Error(), tt.inErrMsg) || !strings.Contains(err.Error(), path)) {
				t.Errorf("read(%s) error %q does not name the path and say %q", tt.path, err, tt.inErrMsg)
			}
		})
	}
}

// A read through Reader ends with the context's error once it ends.
func TestReaderEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, bytes.NewReader(make([]byte, 3*chunk)))
	buf := make([]byte, 4*chunk)
	n, err := r.Read(buf)
	if err != nil || n != chunk {
		t.Fatalf("first Read = %d, %v; want one chunk (%d), nil", n, err, chunk)
	}
	cancel()
	if n, err := r.Read(buf); !errors.Is(err, context.Canceled) || n != 0 {
		t.Fatalf("Read after cancel = %d, %v; want 0, context.Canceled", n, err)
	}
}
