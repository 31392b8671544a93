package acceptance

import (
	"fmt"
	"strings"
	"testing"
)

// The fast half and the full suite are what the docs say: at least 40
// scenarios in all, and the fast half a real part of it.
func TestSuiteSize(t *testing.T) {
	all := allScenarios()
	fast := 0
	for _, s := range all {
		if s.fast {
			fast++
		}
	}
	if len(all) < 40 || fast < 20 || fast == len(all) {
		t.Errorf("the suite has %d scenarios, %d of them fast; want at least 40, and at least 20 but not all fast", len(all), fast)
	}
	var b strings.Builder
	for _, s := range all {
		fmt.Fprintf(&b, "%t %s\n", s.fast, s.name)
	}
	t.Logf("scenarios (fast?, name):\n%s", b.String())
}
