package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A secret source that cannot be read (a file that is absent, an unset
// environment variable, a cluster Secret that does not exist) fails plan,
// diff and apply before any plan exists: exit 2, an error naming the
// secret, its key and the source, no plans/ or runs/ directory, and
// nothing created in the cluster.
func TestMissingSecretSourceFailsBeforeAPlan(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	tests := []struct {
		name   string
		source secretKey
		want   []string // fragments of the error, besides the secret's name
	}{
		{
			name:   "file absent",
			source: secretKey{key: "password", source: `app.FromFile("password", "secret/absent.txt")`},
			want:   []string{`key "password"`, "file secret/absent.txt", "no such file or directory"},
		},
		{
			name:   "environment variable unset",
			source: secretKey{key: "token", source: `app.FromEnv("token", "PICELI_TEST_UNSET_SECRET_VARIABLE")`},
			want:   []string{`key "token"`, "environment variable PICELI_TEST_UNSET_SECRET_VARIABLE is not set"},
		},
		{
			name:   "cluster Secret absent",
			source: secretKey{key: "imported", source: `app.FromCluster("imported", "nowhere", "token")`},
			want:   []string{`key "imported"`, "cluster secret nowhere/token", "Secret/", "/nowhere"},
		},
	}
	if _, ok := os.LookupEnv("PICELI_TEST_UNSET_SECRET_VARIABLE"); ok {
		t.Fatal("PICELI_TEST_UNSET_SECRET_VARIABLE is set; this test needs it unset")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			keys := []secretKey{{key: "gen", source: `app.Generated("gen", 16)`}, tt.source}
			r := newSecretRelease(t, sb, "", keys, goComposition{})
			for _, args := range [][]string{
				{"release", "plan", "--spec", r.spec},
				{"release", "diff", "--spec", r.spec},
				{"release", "apply", "--spec", r.spec},
				{"release", "apply", "--spec", r.spec, "--approve", strings.Repeat("0", 12)},
			} {
				res := run(t, args...)
				what := strings.ReplaceAll(strings.Join(args, " "), r.spec, "release.toml")
				if res.code != ExitRefused {
					t.Errorf("%s: exit %d, want %d\n%s%s", what, res.code, ExitRefused, res.stdout, res.stderr)
				}
				for _, want := range append([]string{`secret "` + secretName + `"`}, tt.want...) {
					if !strings.Contains(res.stderr, want) {
						t.Errorf("%s: stderr does not name %q:\n%s", what, want, res.stderr)
					}
				}
				if strings.Contains(res.stdout, "plan ") {
					t.Errorf("%s printed a plan:\n%s", what, res.stdout)
				}
			}
			for _, dir := range []string{"plans", "runs", "history"} {
				if _, err := os.Stat(filepath.Join(r.stateDir, dir)); !os.IsNotExist(err) {
					t.Errorf("state_dir/%s exists after the refusals (stat: %v), want none", dir, err)
				}
			}
			if versions, _ := filepath.Glob(filepath.Join(r.stateDir, "secrets", "*", "*.json")); len(versions) > 0 {
				t.Errorf("the store holds versions %q after the refusals, want none", versions)
			}
			_, err := sb.Clientset.CoreV1().Secrets(r.ns).Get(t.Context(), secretName, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				t.Errorf("Secret %s in the cluster after the refusals: get error %v, want not found", secretName, err)
			}
			list, err := sb.Clientset.AppsV1().Deployments(r.ns).List(t.Context(), metav1.ListOptions{})
			if err != nil || len(list.Items) > 0 {
				t.Errorf("Deployments in the cluster after the refusals: %d (%v), want none", len(list.Items), err)
			}
		})
	}
}
