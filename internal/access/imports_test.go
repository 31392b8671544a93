package access

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// portForwardClients are the client-go packages that open a port-forward
// through the API server.
var portForwardClients = []string{"k8s.io/client-go/tools/portforward", "k8s.io/client-go/transport/spdy"}

// TestOnlyAccessPortForwards keeps one port-forward implementation: no
// package of the module but this one imports client-go's port-forward or
// SPDY packages (tests excluded: the sandbox's own tests check kwok with
// client-go directly). A second forward would have to go through here.
func TestOnlyAccessPortForwards(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "github.com/pynenc/piceli/...").Output()
	if err != nil {
		t.Fatalf("go list the module's imports: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "github.com/pynenc/piceli/internal/access" {
			continue
		}
		for _, imp := range f[1:] {
			if slices.Contains(portForwardClients, imp) {
				t.Errorf("%s imports %s: port-forward through internal/access (Forward, Start) instead", f[0], imp)
			}
		}
	}
}
