package check

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
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

// Redactor takes secret values out of text before it is kept or shown.
// The zero value redacts nothing.
type Redactor struct {
	needles []string // longest first
}

// Redacted replaces each needle found in text.
const Redacted = "[secret]"

// MinSecret is the shortest value a Redactor looks for: shorter ones would
// blot out ordinary text, and no generated value is that short.
const MinSecret = 6

// NewRedactor returns a Redactor for values: each as it is, base64
// (standard and URL alphabets, padded or not), hex, URL- and JSON-escaped,
// and, for a value of several lines (a PEM key), each line of it.
func NewRedactor(values [][]byte) Redactor {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if len(s) >= MinSecret && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, v := range values {
		s := string(v)
		for _, form := range []string{s, base64.StdEncoding.EncodeToString(v), base64.RawStdEncoding.EncodeToString(v),
			base64.URLEncoding.EncodeToString(v), base64.RawURLEncoding.EncodeToString(v), hex.EncodeToString(v),
			url.QueryEscape(s), jsonEscape(s)} {
			add(form)
		}
		for _, inner := range base64Inner(v) {
			add(inner)
		}
		for line := range strings.SplitSeq(s, "\n") {
			add(strings.TrimSpace(line))
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return Redactor{needles: out}
}

// base64Inner returns the base64 characters v fixes wherever it starts
// inside a longer base64 text (one form per offset modulo three, in both
// alphabets), so a value encoded as part of a larger blob is found too.
func base64Inner(v []byte) []string {
	var out []string
	for off := range 3 {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, off), v...))
		from, to := 4*((off+2)/3), 4*((off+len(v))/3)
		if from < to {
			out = append(out, enc[from:to], strings.NewReplacer("+", "-", "/", "_").Replace(enc[from:to]))
		}
	}
	return out
}

// Redact returns text with every secret value replaced by Redacted.
func (r Redactor) Redact(text string) string {
	for _, n := range r.needles {
		text = strings.ReplaceAll(text, n, Redacted)
	}
	return text
}

// jsonEscape returns s as a JSON string holds it, without the quotes.
func jsonEscape(s string) string {
	q, _ := json.Marshal(s)
	return string(q[1 : len(q)-1])
}
