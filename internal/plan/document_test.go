package plan

import (
	"bytes"
	"strings"
	"testing"
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
	WriteText(&out, p, TextOptions{})
	if want := "warnings (1):\n  Deployment/shop/web: look out\n"; !strings.Contains(out.String(), want) {
		t.Errorf("WriteText() =\n%s\nwant it to contain\n%s", out.String(), want)
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
