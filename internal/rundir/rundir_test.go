package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirIn is a Dir whose base is a folder of a test directory, so tests never
// touch /run or /tmp/piceli-*.
func dirIn(t *testing.T, key string) Dir {
	t.Helper()
	return Dir{Path: filepath.Join(t.TempDir(), "base", Name(key)), Key: key}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestForNamesAShortDirectoryPerKeyAndUser(t *testing.T) {
	deep := "/" + strings.Repeat("d", 199)
	tests := []struct {
		name string
		uid  int
		key  string
		want string
	}{
		{"root's directories are under /run/piceli", 0, deep, "/run/piceli/" + Name(deep)},
		{"another user's are under /tmp/piceli-<uid>", 1000, deep, "/tmp/piceli-1000/" + Name(deep)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ForUser(tt.uid, tt.key)
			if got.Path != tt.want || got.Key != tt.key {
				t.Fatalf("ForUser(%d, %q) = %+v, want Path %s", tt.uid, tt.key, got, tt.want)
			}
		})
	}
	if Name("/a/.piceli-sandbox/kwok/clusters/x") == Name("/b/.piceli-sandbox/kwok/clusters/x") {
		t.Fatal("two keys share a runtime directory name")
	}
	if n := Name(deep); len(n) != 8 || n != Name(deep) {
		t.Fatalf("Name(deep) = %q, want 8 stable hex digits", n)
	}
}

func TestCreateMakesOwnerOnlyDirectoriesAndRemoveLeavesNothing(t *testing.T) {
	d := dirIn(t, "/some/cluster/dir")
	for range 2 { // idempotent
		if err := d.Create(); err != nil {
			t.Fatalf("Create() = %v", err)
		}
	}
	for _, p := range []string{filepath.Dir(d.Path), d.Path} {
		if m := mode(t, p); m != 0o700 {
			t.Errorf("mode of %s = %#o, want 0700", p, m)
		}
	}
	if err := os.WriteFile(filepath.Join(d.Path, "x.sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(); err != nil {
		t.Fatalf("Remove() = %v", err)
	}
	if _, err := os.Lstat(filepath.Dir(d.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("base after Remove: %v, want it gone (it was left empty)", err)
	}
	if err := d.Remove(); err != nil {
		t.Fatalf("second Remove() = %v, want nil", err)
	}
}

func TestRemoveKeepsABaseOthersStillUse(t *testing.T) {
	d := dirIn(t, "/one")
	other := Dir{Path: filepath.Join(filepath.Dir(d.Path), Name("/two")), Key: "/two"}
	for _, x := range []Dir{d, other} {
		if err := x.Create(); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Remove(); err != nil {
		t.Fatalf("Remove() = %v", err)
	}
	if _, err := os.Stat(other.Path); err != nil {
		t.Fatalf("the other key's directory after Remove: %v, want it kept", err)
	}
}

func TestUnusableDirectoriesAreRefused(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, d Dir)
		want  string
		// remove: Remove refuses it too (Remove looks at the directory,
		// not at its base).
		remove bool
	}{
		{"a base that is a symlink", func(t *testing.T, d Dir) {
			target := filepath.Join(filepath.Dir(filepath.Dir(d.Path)), "elsewhere")
			mkdir(t, target, 0o700)
			if err := os.Symlink(target, filepath.Dir(d.Path)); err != nil {
				t.Fatal(err)
			}
		}, "is a symlink", false},
		{"a directory that is a symlink", func(t *testing.T, d Dir) {
			mkdir(t, filepath.Dir(d.Path), 0o700)
			target := filepath.Join(filepath.Dir(d.Path), "elsewhere")
			mkdir(t, target, 0o700)
			if err := os.Symlink(target, d.Path); err != nil {
				t.Fatal(err)
			}
		}, "is a symlink", true},
		{"a base others may write to", func(t *testing.T, d Dir) {
			mkdir(t, filepath.Dir(d.Path), 0o777)
		}, "want 0700", false},
		{"a base that is a file", func(t *testing.T, d Dir) {
			if err := os.WriteFile(filepath.Dir(d.Path), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a directory", false},
		{"a directory held for another key", func(t *testing.T, d Dir) {
			other := Dir{Path: d.Path, Key: "/another/cluster"}
			if err := other.Create(); err != nil {
				t.Fatal(err)
			}
		}, "is held for /another/cluster", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dirIn(t, "/the/cluster")
			tt.setup(t, d)
			calls := map[string]error{"Check": d.Check(), "Create": d.Create()}
			if tt.remove {
				calls["Remove"] = d.Remove()
			}
			for what, err := range calls {
				if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s() = %v, want ErrUnusable saying %q", what, err, tt.want)
				}
			}
		})
	}
}

func mkdir(t *testing.T, path string, perm os.FileMode) {
	t.Helper()
	if err := os.Mkdir(path, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

func TestCheckSocket(t *testing.T) {
	if err := CheckSocket("/" + strings.Repeat("s", MaxSocketPath-1)); err != nil {
		t.Errorf("CheckSocket(107 bytes) = %v, want nil", err)
	}
	if err := CheckSocket("/" + strings.Repeat("s", MaxSocketPath)); err == nil || !strings.Contains(err.Error(), "108 bytes") {
		t.Errorf("CheckSocket(108 bytes) = %v, want refused naming its length", err)
	}
}
