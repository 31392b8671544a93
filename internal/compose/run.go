package compose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/wire"
)

// Bounds on what a composition program may print.
const (
	maxStdout = 256 << 20
	maxStderr = 64 << 10
)

// errTooLarge stops a composition program that prints too much.
var errTooLarge = fmt.Errorf("composition document is larger than %d MiB", maxStdout>>20)

// runBinary runs a compiled composition in dir with cd on its standard
// input and returns the document it wrote.
func runBinary(ctx context.Context, bin, dir string, cd wire.ContextDocument) (*wire.Document, error) {
	input, err := json.Marshal(cd)
	if err != nil {
		return nil, fmt.Errorf("encode context document: %w", err)
	}
	stdout := &boundedBuffer{max: maxStdout, err: errTooLarge}
	stderr := &boundedBuffer{max: maxStderr}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if stdout.full {
		return nil, errTooLarge
	}
	return documentOf(stdout.buf.Bytes(), runErr, stderr.buf.String())
}

// documentOf decodes what a composition program wrote. A document with an
// error is the function's own error; a failed run without a document
// reports the program's standard error.
func documentOf(out []byte, runErr error, stderr string) (*wire.Document, error) {
	doc, decodeErr := wire.DecodeDocument(out)
	switch {
	case decodeErr == nil && doc.Error != "":
		return nil, errors.New(doc.Error)
	case runErr != nil:
		return nil, fmt.Errorf("composition program failed: %w%s", runErr, stderrSuffix(stderr))
	case decodeErr != nil:
		return nil, fmt.Errorf("%w%s", decodeErr, stderrSuffix(stderr))
	}
	return doc, nil
}

// stderrSuffix shows a program's standard error, if any, after an error.
func stderrSuffix(stderr string) string {
	stderr = strings.TrimRight(stderr, "\n")
	if stderr == "" {
		return ""
	}
	return ":\n" + stderr
}

// boundedBuffer keeps at most max bytes. Past that it fails with err, or,
// when err is nil, silently drops the rest.
type boundedBuffer struct {
	buf  bytes.Buffer
	max  int
	err  error
	full bool
}

// Write implements io.Writer.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	room := b.max - b.buf.Len()
	if len(p) <= room {
		return b.buf.Write(p)
	}
	b.buf.Write(p[:max(room, 0)])
	if b.err != nil {
		b.full = true
		return 0, b.err
	}
	return len(p), nil
}
