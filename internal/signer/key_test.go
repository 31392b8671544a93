package signer

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLoadOrCreateMakesAPrivateKeyOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "state.key")
	k, created, err := LoadOrCreate(path)
	if err != nil || !created {
		t.Fatalf("LoadOrCreate(new) = %v, created %v; want a new key", err, created)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v (%v), want 0600", info.Mode(), err)
	}
	again, created, err := LoadOrCreate(path)
	if err != nil || created || !again.Public().Equal(k.Public()) {
		t.Fatalf("LoadOrCreate(existing) = %v, created %v; want the same key, not a new one", err, created)
	}
	msg := []byte("statement")
	if !ed25519.Verify(k.Public(), msg, again.Sign(msg)) {
		t.Errorf("a signature by the loaded key does not verify with the created key's public half")
	}
}

func TestLoadRefusesFilesThatAreNotPrivateKeys(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.key")
	if _, _, err := LoadOrCreate(good); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	write := func(name string, body []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	link := filepath.Join(dir, "link.key")
	os.Symlink(good, link)
	fifo := filepath.Join(dir, "fifo.key")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path, want string
	}{
		{name: "a key readable by others is refused", path: write("open.key", data, 0o644), want: "mode 0644"},
		{name: "a key writable by the group is refused", path: write("group.key", data, 0o620), want: "mode 0620"},
		{name: "a symbolic link is refused", path: link, want: "not a regular file"},
		{name: "a FIFO is refused without blocking", path: fifo, want: "not a regular file"},
		{name: "a directory is refused", path: dir, want: "not a regular file"},
		{name: "a huge file is refused", path: write("huge.key", make([]byte, 5<<10), 0o600), want: "larger than"},
		{name: "text that is not PEM is refused", path: write("text.key", []byte("hello"), 0o600), want: "not one PEM"},
		{name: "a missing file says how to create it", path: filepath.Join(dir, "none.key"), want: `run "piceli state key"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Fatalf("Load(%s) = %v, want an error naming the file and saying %q", tt.path, err, tt.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "none.key")); !errors.Is(err, ErrNoKey) {
		t.Errorf("Load(missing) = %v, want ErrNoKey", err)
	}
}

func TestFileFollowsTheEnvironment(t *testing.T) {
	t.Setenv(FileEnv, "/etc/ci/state.key")
	if got, err := File(); err != nil || got != "/etc/ci/state.key" {
		t.Errorf("File() with %s set = %q, %v; want that file", FileEnv, got, err)
	}
	t.Setenv(FileEnv, "")
	t.Setenv("XDG_CONFIG_HOME", "/home/x/.config")
	if got, err := File(); err != nil || got != "/home/x/.config/piceli/state-signing.key" {
		t.Errorf("File() by default = %q, %v; want the user config directory's piceli/state-signing.key", got, err)
	}
}
