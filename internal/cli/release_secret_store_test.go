package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The private store is owner-only: state_dir/secrets and each secret's
// directory 0700, each version file 0600, whether "release plan" creates
// them or finds them created with looser modes; it holds version files and
// nothing else. "release secret show" prints metadata, and values only
// with --reveal and --stdout when stdout is not a terminal.
func TestSecretStoreIsOwnerOnly(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	for _, loose := range []bool{false, true} {
		name := "created by plan"
		if loose {
			name = "existing with looser modes"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newSecretRelease(t, sb, "", rolloutKeys, goComposition{})
			r.writeSecretFile(t, "secret/pw.txt", "first")
			store := filepath.Join(r.stateDir, "secrets")
			if loose {
				if err := os.MkdirAll(filepath.Join(store, secretName), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(store, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			r.plan(t)
			r.writeSecretFile(t, "secret/pw.txt", "second")
			r.plan(t)

			var versions []string
			err := filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				st, err := os.Lstat(p)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(store, p)
				want := fs.FileMode(0o600)
				switch {
				case st.IsDir():
					want = fs.ModeDir | 0o700
				case st.Mode().IsRegular() && filepath.Dir(rel) == secretName && regexp.MustCompile(`^[0-9]{6}\.json$`).MatchString(d.Name()):
					versions = append(versions, rel)
				default:
					t.Errorf("the store holds %s (mode %v), want only version files", rel, st.Mode())
				}
				if st.Mode() != want {
					t.Errorf("%s: mode %v, want %v", filepath.Join("secrets", rel), st.Mode(), want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{secretName + "/000001.json", secretName + "/000002.json"}; strings.Join(versions, " ") != strings.Join(want, " ") {
				t.Errorf("version files %q, want %q", versions, want)
			}
		})
	}
}

// "release secret show" shows metadata by default, and refuses to print
// values to something other than a terminal without --stdout.
func TestSecretShowRevealsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newSecretRelease(t, sb, "", rolloutKeys, goComposition{})
	const value = "show-me-only-when-asked"
	r.writeSecretFile(t, "secret/pw.txt", value)
	r.plan(t)

	show := run(t, "release", "secret", "show", secretName, "--spec", r.spec)
	for _, want := range []string{"secret " + secretName + " version 1", `file: file ref="secret/pw.txt"`, "gen: generated length=24"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("secret show does not say %q:\n%s", want, show.stdout)
		}
	}
	refused := run(t, "release", "secret", "show", secretName, "--spec", r.spec, "--reveal")
	if refused.code != ExitRefused || !strings.Contains(refused.stderr, "--stdout") {
		t.Errorf("--reveal to a non-terminal: exit %d, want %d naming --stdout\n%s", refused.code, ExitRefused, refused.stderr)
	}
	for _, res := range []result{show, refused} {
		if l := leaks([]byte(res.stdout+res.stderr), map[string]string{"file": value}); len(l) > 0 {
			t.Errorf("secret show without --reveal --stdout printed a value: %v", l)
		}
	}
	if got := revealed(t, r.spec, secretName, "")["file"]; got != value {
		t.Errorf("--reveal --stdout printed file=%q, want the value", got)
	}
	missing := run(t, "release", "secret", "show", secretName, "--spec", r.spec, "--version", "9")
	if missing.code != ExitRefused || !strings.Contains(missing.stderr, "version 9") {
		t.Errorf("show --version 9: exit %d, want %d naming the version\n%s", missing.code, ExitRefused, missing.stderr)
	}
}
