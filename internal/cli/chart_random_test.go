package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/compose/chart"
)

// A chart calling a random function Piceli cannot replay from the
// release's seed (genCA) is refused by render with exit 2, naming the
// chart, its template and the function, with the advice to set the value.
func TestRenderRefusesAChartThatGeneratesACertificate(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tls/Chart.yaml":          "apiVersion: v2\nname: tls\nversion: 1.0.0\n",
		"tls/templates/cert.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: tls}\nstringData:\n  ca: {{ (genCA \"ca\" 365).Cert | quote }}\n",
		"manifests/cm.yaml":       configMap,
	})
	d, err := chart.Digest(filepath.Join(dir, "tls"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"release.toml": "[target]\nkubeconfig = \"none.kubeconfig\"\ncontext = \"none\"\nnamespace = \"apps\"\n\n[release]\nname = \"demo\"\ncomposition = \"manifests\"\n\n[[charts]]\npath = \"tls\"\ndigest = \"" + d + "\"\n"})
	res := run(t, "render", "--spec", filepath.Join(dir, "release.toml"))
	if res.code != ExitRefused {
		t.Fatalf("render of a chart calling genCA: exit %d, want %d\n%s", res.code, ExitRefused, res.stderr)
	}
	for _, want := range []string{"chart " + filepath.Join(dir, "tls"), "tls/templates/cert.yaml", "error calling genCA", "Piceli refuses genCA", "set the value in the chart's values"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("render's refusal does not say %q:\n%s", want, res.stderr)
		}
	}
}
