package observe_test

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/observe"
	"github.com/pynenc/piceli/refusal"
)

// A saved forward to deployment/api runs through the API server and
// reaches the loopback server behind the pod; stopped, it listens no more.
// One saved for another cluster is refused.
func TestSavedForwardReachesLoopbackServer(t *testing.T) {
	l := newLens(t, 0)
	prefs := observe.Prefs{Dir: filepath.Join(t.TempDir(), "forwards")}
	fw, err := observe.NewForwarder(t.Context(), l.cl)
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	port := freePort(t)
	saved := fw.Scope(observe.Forward{Name: "api", Namespace: l.ns, Target: "deployment/api", Address: "127.0.0.1", LocalPort: port, RemotePort: 8080})
	if err := prefs.Save("alice", saved); err != nil {
		t.Fatal(err)
	}
	f, err := prefs.Get("alice", "api")
	if err != nil {
		t.Fatal(err)
	}
	st, err := fw.Start(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := "127.0.0.1:" + strconv.Itoa(port); st.Local != want || !st.Running {
		t.Fatalf("Start = %+v, want running on %s", st, want)
	}
	if err := fw.WaitReady(sandboxtest.Context(t, time.Minute), "api"); err != nil {
		t.Fatal(err)
	}
	if body := get(t, "http://"+st.Local+"/"); body != l.backend.Token {
		t.Fatalf("GET through the forward = %q, want the loopback server's token %q", body, l.backend.Token)
	}
	if err := fw.Stop("api"); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", st.Local, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Stop", st.Local)
	}

	other := f
	other.ClusterUID = "another-cluster"
	if _, err := fw.Start(other); !refusal.Is(err) {
		t.Errorf("Start of a forward saved for another cluster = %v, want it refused", err)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: 20 * time.Second}
	var last error
	for range 20 {
		res, err := c.Get(url)
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return string(body)
		}
		last = err
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("GET %s: %v", url, last)
	return ""
}
