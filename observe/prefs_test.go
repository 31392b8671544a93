package observe

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/refusal"
)

func savedForward() Forward {
	return Forward{Name: "api", Namespace: "shop", Target: "deployment/api", Address: "127.0.0.1", LocalPort: 18080,
		RemotePort: 8080, ClusterUID: "uid-1", Context: "kwok-piceli"}
}

func TestPrefsFileIsOwnerOnly(t *testing.T) {
	p := Prefs{Dir: filepath.Join(t.TempDir(), "forwards")}
	if err := p.Save("alice", savedForward()); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{p.Dir: 0o700, filepath.Join(p.Dir, "alice.json"): 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s has mode %v, want %v", path, got, want)
		}
	}
	got, err := p.List("alice")
	if err != nil || len(got) != 1 || got[0] != savedForward() {
		t.Fatalf("List(alice) = %+v, %v; want the saved forward", got, err)
	}
	if fs, err := p.List("bob"); err != nil || len(fs) != 0 {
		t.Errorf("List(bob) = %+v, %v; want none: each user has a file of their own", fs, err)
	}
	if err := os.Chmod(filepath.Join(p.Dir, "alice.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.List("alice"); !refusal.Is(err) || !strings.Contains(err.Error(), "owner-only") {
		t.Errorf("List of a file others may read = %v, want it refused as not owner-only", err)
	}
}

func TestSaveRefusesBadForwards(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Forward)
		want string
	}{
		{"a privileged local port", func(f *Forward) { f.LocalPort = 80 }, "local port 80 refused"},
		{"a wildcard address", func(f *Forward) { f.Address = "0.0.0.0" }, "only 127.0.0.1 or ::1"},
		{"a non-loopback address", func(f *Forward) { f.Address = "192.168.1.10" }, "only 127.0.0.1 or ::1"},
		{"localhost by name", func(f *Forward) { f.Address = "localhost" }, "only 127.0.0.1 or ::1"},
		{"an unknown target kind", func(f *Forward) { f.Target = "ingress/web" }, "want service/NAME"},
		{"a remote port out of range", func(f *Forward) { f.RemotePort = 70000 }, "remote port 70000"},
		{"no cluster scope", func(f *Forward) { f.ClusterUID = "" }, "cluster identity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Prefs{Dir: t.TempDir()}
			f := savedForward()
			tc.edit(&f)
			err := p.Save("alice", f)
			if !refusal.Is(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Save(%s) = %v, want bad input saying %q", tc.name, err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(p.Dir, "alice.json")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused Save left a preferences file (%v)", err)
			}
		})
	}
}

func TestUserNamesCannotEscapeTheDirectory(t *testing.T) {
	p := Prefs{Dir: t.TempDir()}
	for _, user := range []string{"../x", "a/b", "", ".hidden", "Alice"} {
		if err := p.Save(user, savedForward()); !refusal.Is(err) {
			t.Errorf("Save(user %q) = %v, want bad input", user, err)
		}
	}
}

func TestDeleteRemovesOnlyTheNamedForward(t *testing.T) {
	p := Prefs{Dir: t.TempDir()}
	other := savedForward()
	other.Name = "web"
	for _, f := range []Forward{savedForward(), other} {
		if err := p.Save("alice", f); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Delete("alice", "api"); err != nil {
		t.Fatal(err)
	}
	if fs, _ := p.List("alice"); len(fs) != 1 || fs[0].Name != "web" {
		t.Errorf("after Delete(api): %+v, want only web", fs)
	}
	if err := p.Delete("alice", "api"); !refusal.Is(err) {
		t.Errorf("Delete of an unknown forward = %v, want bad input", err)
	}
}
