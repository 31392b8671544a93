package localpath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKey(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a DNS name is kept", "web-1.shop", "web-1.shop"},
		{"upper case is lowered", "ConfigMap-Web", "configmap-web"},
		{"slashes and dots of a path escape become dashes", "x/../../victim", "x-..-..-victim"},
		{"a newline, quotes and comment markers become dashes", "a\n*/\"`b", "a-----b"},
		{"non-ASCII letters become dashes", "café", "caf-"},
		{"a leading dot is no hidden file", ".hidden", "-hidden"},
		{"dot-dot is no parent", "..", "-."},
		{"an empty name gives a dash", "", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Key(tt.in)
			if got != tt.want {
				t.Errorf("Key(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if err := Check(got); err != nil {
				t.Errorf("Check(Key(%q)) = %v, want nil", tt.in, err)
			}
		})
	}
}

func TestKeyOfALongNameIsCutAndEndsWithItsHash(t *testing.T) {
	long := strings.Repeat("a", 300)
	got := Key(long)
	if len(got) != MaxKey || !strings.HasPrefix(got, long[:MaxKey-hashLen-1]+"-") {
		t.Fatalf("Key(300 a's) = %q (%d bytes), want %d bytes ending in a hash", got, len(got), MaxKey)
	}
	if other := Key(long + "b"); other == got || len(other) != MaxKey {
		t.Errorf("Key(301 bytes) = %q, want another key of %d bytes than %q", other, MaxKey, got)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, rel string
		ok        bool
	}{
		{"a plain file name is local", "004-configmap-web.yaml", true},
		{"a file in a folder is local", "manifests/configmap-web.yaml", true},
		{"an empty path is refused", "", false},
		{"an absolute path is refused", "/etc/passwd", false},
		{"a parent element is refused", "../victim.yaml", false},
		{"a parent element inside is refused", "a/../../victim.yaml", false},
		{"an unclean path is refused", "a//b", false},
		{"a dot element is refused", "./a", false},
		{"a backslash is refused", `a\..\b`, false},
		{"a newline is refused", "a\nb", false},
		{"a NUL is refused", "a\x00b", false},
		{"invalid UTF-8 is refused", "a\xffb", false},
		{"an element over 255 bytes is refused", strings.Repeat("x", 256), false},
		{"an element of 255 bytes is local", strings.Repeat("x", 255), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.rel)
			if tt.ok != (err == nil) {
				t.Fatalf("Check(%q) = %v, want ok %v", tt.rel, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrNotLocal) {
				t.Errorf("Check(%q) = %v, want it to match ErrNotLocal", tt.rel, err)
			}
		})
	}
}

func TestCheckNameTakesOneElement(t *testing.T) {
	if err := CheckName("20260101-000000-abcdef"); err != nil {
		t.Errorf("CheckName(a run id) = %v, want nil", err)
	}
	for _, bad := range []string{"a/b", "..", "../x", ""} {
		if err := CheckName(bad); !errors.Is(err, ErrNotLocal) {
			t.Errorf("CheckName(%q) = %v, want ErrNotLocal", bad, err)
		}
	}
}

func TestJoinStaysInItsDirectory(t *testing.T) {
	got, err := Join("/out", "manifests/a.yaml")
	if err != nil || got != filepath.Join("/out", "manifests", "a.yaml") {
		t.Errorf("Join(/out, manifests/a.yaml) = %q, %v, want /out/manifests/a.yaml", got, err)
	}
	if got, err := Join("/out", "x/../../etc/passwd"); err == nil {
		t.Errorf("Join(/out, x/../../etc/passwd) = %q, want an error", got)
	}
}

func TestWriteFileRefusesSymlinksOutOfItsDirectory(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "out"), filepath.Join(base, "victim.yaml")
	mustWrite(t, outside, "original")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"link.yaml", "up/victim.yaml", "../victim.yaml"} {
		if err := WriteFile(dir, rel, []byte("attacker"), 0o644); err == nil {
			t.Errorf("WriteFile(out, %q) = nil, want it refused", rel)
		}
	}
	if got, _ := os.ReadFile(outside); string(got) != "original" {
		t.Errorf("the file outside the directory now holds %q", got)
	}
	if err := WriteFile(dir, "sub/deeper/ok.yaml", []byte("fine"), 0o644); err != nil {
		t.Fatalf("WriteFile(out, sub/deeper/ok.yaml) = %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sub", "deeper", "ok.yaml")); string(got) != "fine" {
		t.Errorf("sub/deeper/ok.yaml = %q, want fine", got)
	}
}

func TestRemoveStaysInItsDirectory(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "out"), filepath.Join(base, "keep.yaml")
	mustWrite(t, outside, "keep")
	mustWrite(t, filepath.Join(dir, "gone.yaml"), "x")
	if err := Remove(dir, "../keep.yaml"); err == nil {
		t.Error("Remove(out, ../keep.yaml) = nil, want it refused")
	}
	if err := Remove(dir, "gone.yaml"); err != nil {
		t.Fatalf("Remove(out, gone.yaml) = %v", err)
	}
	if err := Remove(dir, "gone.yaml"); err != nil {
		t.Errorf("Remove of a missing file = %v, want nil", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the file outside the directory: %v", err)
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
