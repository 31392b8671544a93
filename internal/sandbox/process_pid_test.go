package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestReadPIDDirWhileKwokctlWritesIt reads a pids directory as kwokctl
// leaves it for a moment while it starts the control plane: one file
// written, one created but still empty. The empty one is not started yet
// (it failed the start of a sandbox under load); a file holding no number
// is still an error.
func TestReadPIDDirWhileKwokctlWritesIt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("etcd.pid", strconv.Itoa(os.Getpid())+"\n")
	write("kube-apiserver.pid", "")
	procs, err := readPIDDir(dir, "/nowhere")
	if err != nil {
		t.Fatalf("readPIDDir() = %v, want the written pid and no error", err)
	}
	if len(procs) != 1 || procs[0].Component != "etcd" || procs[0].PID != os.Getpid() {
		t.Errorf("readPIDDir() = %+v, want etcd alone", procs)
	}
	write("kube-apiserver.pid", "not a pid\n")
	if _, err := readPIDDir(dir, "/nowhere"); err == nil {
		t.Error("readPIDDir() read a pid file holding no number without an error")
	}
}
