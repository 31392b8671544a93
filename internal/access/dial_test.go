package access

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// A dial the API server never answers ends when its context does: an
// interrupted command must not wait on client-go's dialers, which take no
// context.
func TestADialEndsWithItsContext(t *testing.T) {
	answer := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-answer // an API server too busy to answer the upgrade
	}))
	defer srv.Close()
	defer close(answer)
	cfg := &rest.Config{Host: srv.URL}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	ended := make(chan error, 1)
	go func() {
		_, err := dialPod(ctx, cfg, cs, "ns", "web-0")
		ended <- err
	}()
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("dialPod() = nil error, want the context's")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("dialPod() still waits on the server 10 s after its context ended")
	}
}
