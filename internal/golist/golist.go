package golist

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// MaxOutput bounds how many bytes of go list's standard output Deps
// reads; MaxStderr how many of its standard error an Error keeps.
const (
	MaxOutput = 64 << 20
	MaxStderr = 64 << 10
)

// Options say how to run go list. The zero value runs "go" from PATH in
// the caller's environment.
type Options struct {
	Go  string   // the go command; empty means "go" looked up on PATH
	Env []string // the environment of go list; nil means the caller's
}

// Error is go list failing on a package directory: Stderr is what it
// printed (at most MaxStderr bytes), verbatim.
type Error struct {
	Dir    string
	Stderr string
	Err    error // the go command's exit error
}

// Error names the directory and says what go printed, or how it ended.
func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("go list -deps in %s: %s", e.Dir, msg)
}

// Unwrap returns the go command's exit error.
func (e *Error) Unwrap() error { return e.Err }

// Deps runs `go list -deps -json=FIELDS .` in dir and decodes each package
// it prints into a T, in dependency order (the package in dir last).
// fields name the go list fields T reads. A failing go list is an *Error;
// an output over MaxOutput bytes, or one that does not decode, is an error
// naming dir. When ctx ends, go list is killed and Deps returns an error
// wrapping ctx's.
func Deps[T any](ctx context.Context, dir string, fields []string, opts Options) ([]T, error) {
	out, err := run(ctx, dir, opts, "list", "-deps", "-json="+strings.Join(fields, ","), ".")
	if err != nil {
		return nil, err
	}
	var pkgs []T
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p T
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode go list -deps output in %s: %w", dir, err)
		}
		pkgs = append(pkgs, p)
	}
}

// run runs go with args in dir and returns its standard output.
func run(ctx context.Context, dir string, opts Options, args ...string) ([]byte, error) {
	gotool := opts.Go
	if gotool == "" {
		gotool = "go"
	}
	cmd := exec.CommandContext(ctx, gotool, args...)
	cmd.Dir, cmd.Env = dir, opts.Env
	stdout, stderr := &bounded{max: MaxOutput}, &bounded{max: MaxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("go list -deps in %s: %w", dir, context.Cause(ctx))
	case err != nil:
		return nil, &Error{Dir: dir, Stderr: stderr.String(), Err: err}
	case stdout.over:
		return nil, fmt.Errorf("go list -deps in %s: its output passed %d MiB", dir, MaxOutput>>20)
	}
	return stdout.buf.Bytes(), nil
}

// bounded keeps the first max bytes written to it and drops the rest, so
// that the writer never blocks the command and memory stays bounded. It
// has no ReadFrom, so every copy goes through Write.
type bounded struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *bounded) Write(p []byte) (int, error) {
	room := b.max - b.buf.Len()
	if len(p) > room {
		b.over = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *bounded) String() string { return b.buf.String() }
