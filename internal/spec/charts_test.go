package spec

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const chartDigestValue = "sha256:" + "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12"

func TestParseChartsAndKustomizations(t *testing.T) {
	data := good + "\n[[charts]]\npath = \"charts/shop\"\ndigest = \"" + chartDigestValue + "\"\nvalues_file = \"shop.yaml\"\nvalues = { web = { replicas = 3 } }\n\n[[kustomizations]]\npath = \"k\"\n"
	s, err := Parse("/x/release.toml", []byte(data))
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}
	want := []Chart{{Path: filepath.FromSlash("/x/charts/shop"), Digest: chartDigestValue, ValuesFile: "/x/shop.yaml",
		Values: map[string]any{"web": map[string]any{"replicas": int64(3)}}}}
	if diff := cmp.Diff(want, s.Charts); diff != "" {
		t.Errorf("Parse() charts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Kustomization{{Path: "/x/k"}}, s.Kustomizations); diff != "" {
		t.Errorf("Parse() kustomizations (-want +got):\n%s", diff)
	}
}

func TestParseRefusesBadCharts(t *testing.T) {
	tests := []struct {
		name string
		add  string
		want string
	}{
		{"an unknown key names its line", "[[charts]]\npath = \"c\"\ndigest = \"" + chartDigestValue + "\"\nversion = \"1\"\n",
			"release.toml:27: charts[0].version: unknown key (known keys: path, digest, name, values_file, values)"},
		{"a missing digest", "[[charts]]\npath = \"c\"\n", "charts[0].digest: required"},
		{"a digest that is not sha256", "[[charts]]\npath = \"c\"\ndigest = \"md5:00\"\n", `charts[0].digest: "md5:00" is not "sha256:"`},
		{"an unknown kustomization key", "[[kustomizations]]\npath = \"k\"\nremote = true\n", "kustomizations[0].remote: unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("release.toml", []byte(good+"\n"+tt.add))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
