package observe_test

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/observe"
	"github.com/pynenc/piceli/refusal"
)

// requestLog records the path and Accept header of every request.
type requestLog struct {
	mu   sync.Mutex
	reqs []string // "PATH ACCEPT"
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.reqs = append(l.reqs, r.URL.Path+" "+r.Header.Get("Accept"))
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// fullSecretReads are the recorded requests that read Secrets other than
// as metadata.
func (l *requestLog) fullSecretReads() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.reqs {
		if strings.Contains(r, "/secrets") && !strings.Contains(r, "as=PartialObjectMetadata") {
			out = append(out, r)
		}
	}
	return out
}

// A crafted session archive made the lens LIST Secrets in full (kind
// ConfigMap paired with resource secrets, namespaces including
// kube-system; issue 28, hole 10). The lens now checks each kind and
// resource against discovery and the archive's namespaces against its
// objects', refusing a mismatch by name before listing anything, and lists
// the secrets resource as metadata only.
func TestSecurityLensRefusesACraftedArchive(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	canary := "lens-canary-" + strings.Repeat("5e", 12)
	if _, err := sb.Clientset.CoreV1().Secrets(ns).Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "app"},
		StringData: map[string]string{"password": canary}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := object.Ref{Kind: "ConfigMap", Namespace: ns, Name: "app"}
	tests := []struct {
		name    string
		craft   func(a *observe.Archive)
		refused string // what the error names; empty: not refused
	}{
		{name: "kind ConfigMap paired with resource secrets is refused", refused: `resource "configmaps" in this cluster, but the archive says "secrets"`,
			craft: func(a *observe.Archive) { a.Objects[0].Resource = "secrets" }},
		{name: "a namespace none of its objects is in is refused", refused: `namespace "kube-system"`,
			craft: func(a *observe.Archive) { a.Namespaces = append(a.Namespaces, "kube-system") }},
		{name: "a kind the cluster does not serve is refused", refused: "not served by this cluster",
			craft: func(a *observe.Archive) { a.Objects[0].Ref.Kind, a.Objects[0].Ref.Name = "ConfigMapX", "x" }},
		{name: "a namespaced kind given no namespace is refused", refused: "namespaced in this cluster",
			craft: func(a *observe.Archive) { a.Objects[0].Ref.Namespace = "" }},
		{name: "a declared Secret is listed as metadata only", craft: func(a *observe.Archive) {
			a.Objects[0].Ref.Kind, a.Objects[0].Resource = "Secret", "secrets"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log requestLog
			cl, err := observe.Connect(t.Context(), observe.Target{Kubeconfig: sb.Kubeconfig, Context: sb.Context, WrapTransport: log.wrap})
			if err != nil {
				t.Fatal(err)
			}
			l := &lens{sb: sb, ns: ns, cl: cl}
			a := l.archiveOf(t, cm)
			tt.craft(a)
			rep, err := observe.Status(t.Context(), cl, a, observe.StatusOptions{})
			switch {
			case tt.refused != "" && (!refusal.Is(err) || !strings.Contains(err.Error(), tt.refused)):
				t.Errorf("Status = %v, want refused as bad input naming %q", err, tt.refused)
			case tt.refused == "" && err != nil:
				t.Errorf("Status = %v, want a report", err)
			case tt.refused == "" && !slices.ContainsFunc(rep.Objects, func(o observe.ObjectStatus) bool { return o.Ref.Kind == "Secret" }):
				t.Errorf("Status report %+v lacks the declared Secret", rep.Objects)
			}
			if reads := log.fullSecretReads(); len(reads) > 0 {
				t.Errorf("the lens read Secrets in full: %q", reads)
			}
			if err != nil && strings.Contains(err.Error(), canary) {
				t.Errorf("the error holds the Secret's value: %v", err)
			}
		})
	}
}
