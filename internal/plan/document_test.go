package plan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/object"
	pub "github.com/pynenc/piceli/plan"
)

// Warnings are derived for people: they leave the hash alone, and the
// text output lists each under its object.
func TestWarningsAreShownAndNotHashed(t *testing.T) {
	p := samplePlan()
	base := mustHash(t, p)
	p.Steps[1].Warnings = []string{"look out"}
	if got := mustHash(t, p); got != base {
		t.Errorf("a warning changed the hash")
	}
	var out bytes.Buffer
	p.Write(&out, pub.WriteOptions{})
	if want := "warnings (1):\n  Deployment/shop/web: look out\n"; !strings.Contains(out.String(), want) {
		t.Errorf("Write() =\n%s\nwant it to contain\n%s", out.String(), want)
	}
}

// The namespaces a plan writes are part of what is approved.
func TestNamespacesAreHashed(t *testing.T) {
	p := samplePlan()
	base := mustHash(t, p)
	p.Namespaces = []string{"shop", "jobs"}
	if got := mustHash(t, p); got == base {
		t.Errorf("the namespaces written left the hash unchanged")
	}
}

// The objects a plan keeps are listed for people with their reason, and
// leave the hash alone: the plan does nothing to them.
func TestKeptIsShownAndNotHashed(t *testing.T) {
	p := samplePlan()
	base := mustHash(t, p)
	p.Kept = []Kept{{Ref: object.Ref{Kind: "Secret", Namespace: "shop", Name: "db"}, UID: "s", Reason: KeepProtected}}
	if got := mustHash(t, p); got != base {
		t.Errorf("a kept object changed the hash")
	}
	var out bytes.Buffer
	p.Write(&out, pub.WriteOptions{})
	want := "kept, not deleted (1):\n  = Secret/shop/db: it may hold data; annotate it piceli.dev/prune=allow to let prune delete it\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("Write() =\n%s\nwant it to contain\n%s", out.String(), want)
	}
}
