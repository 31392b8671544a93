package access

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// blockedStream is an error stream the pod side never closes: reads block
// until Reset.
type blockedStream struct{ reset chan struct{} }

func (s *blockedStream) Read([]byte) (int, error)    { <-s.reset; return 0, io.ErrClosedPipe }
func (s *blockedStream) Write(p []byte) (int, error) { return len(p), nil }
func (s *blockedStream) Close() error                { return nil }
func (s *blockedStream) Reset() error                { close(s.reset); return nil }
func (s *blockedStream) Headers() http.Header        { return http.Header{} }
func (s *blockedStream) Identifier() uint32          { return 1 }

// A session that ends does not wait for the pod side's error stream: the
// stream is reset at once, well within the seconds an interrupted command
// gets to end, instead of after errorStreamWait.
func TestAnEndingSessionDoesNotWaitForTheErrorStream(t *testing.T) {
	s := &blockedStream{reset: make(chan struct{})}
	errc := make(chan string, 1)
	go func() {
		msg, _ := io.ReadAll(s)
		errc <- string(msg)
	}()
	done := make(chan struct{})
	close(done)
	start := time.Now()
	waitErrorStream(s, errc, done)
	if took := time.Since(start); took >= errorStreamWait {
		t.Errorf("waitErrorStream with the session ended took %v, want it at once (errorStreamWait is %v)", took, errorStreamWait)
	}
}
