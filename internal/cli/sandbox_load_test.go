package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `sandbox load` refuses, with exit 2 and the reason, a path that is no
// image and a sandbox that has no real node, before touching anything.
func TestSandboxLoadRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	notImage := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notImage, []byte("not an image\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	layoutless := filepath.Join(dir, "plain-dir")
	if err := os.Mkdir(layoutless, 0o755); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, "image.tar")
	if err := os.WriteFile(tarball, append(make([]byte, 257), "ustar\x0000"+strings.Repeat("\x00", 250)...), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args []string
		want string
	}{
		"no argument":                 {[]string{"sandbox", "load", "--dir", dir}, "accepts 1 arg"},
		"a missing file":              {[]string{"sandbox", "load", "--dir", dir, filepath.Join(dir, "nope.tar")}, "no such file or directory"},
		"a file that is no archive":   {[]string{"sandbox", "load", "--dir", dir, notImage}, "not an image archive or OCI image layout"},
		"a directory without layout":  {[]string{"sandbox", "load", "--dir", dir, layoutless}, "without an oci-layout file"},
		"a sandbox without real node": {[]string{"sandbox", "load", "--name", "plain", "--dir", dir, tarball}, "--real-node"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != ExitRefused || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("piceli %s = exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), r.code, r.stderr, ExitRefused, tt.want)
			}
		})
	}
}
