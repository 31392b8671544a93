package check

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/pynenc/piceli/internal/redact"
)

// MaxExcerpt bounds the excerpt a check keeps of its output (a command's,
// a Job's logs, an HTTP body): the last MaxExcerpt bytes, on a line
// boundary, after a line saying how much came before.
const MaxExcerpt = 4 << 10

// tail keeps the last max bytes written to it and counts the rest, so a
// command printing gigabytes costs max bytes of memory. It is safe for
// concurrent use (a command's stdout and stderr write to one tail).
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []byte // ring of at most max bytes
	start int    // where the oldest byte is once buf is full
	total int64
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	t.total += int64(n)
	if len(p) >= t.max {
		t.buf, t.start = append(t.buf[:0], p[len(p)-t.max:]...), 0
		return n, nil
	}
	for len(p) > 0 {
		if len(t.buf) < t.max {
			k := min(t.max-len(t.buf), len(p))
			t.buf, p = append(t.buf, p[:k]...), p[k:]
			continue
		}
		k := copy(t.buf[t.start:], p)
		t.start, p = (t.start+k)%t.max, p[k:]
	}
	return n, nil
}

// String returns what is kept, oldest first. When bytes were dropped, the
// partial first line goes too (so no value is cut in the middle of its
// line) and a line saying how many bytes came before leads.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	kept := append(slices.Clone(t.buf[t.start:]), t.buf[:t.start]...)
	dropped := t.total - int64(len(kept))
	if dropped == 0 {
		return string(kept)
	}
	if i := bytes.IndexByte(kept, '\n'); i >= 0 {
		dropped += int64(i + 1)
		kept = kept[i+1:]
	} else {
		dropped, kept = t.total, nil
	}
	return fmt.Sprintf("[%d bytes before this omitted]\n%s", dropped, kept)
}

// Redactor takes secret values out of text before it is kept or shown;
// see redact.Redactor for the encodings it finds. The zero value redacts
// nothing.
type Redactor = redact.Redactor

// Redacted replaces each secret value found.
const Redacted = redact.Mark

// MinSecret is the shortest form a Redactor looks for.
const MinSecret = redact.MinSecret

// NewRedactor returns a Redactor for values.
func NewRedactor(values [][]byte) Redactor { return redact.New(values) }
