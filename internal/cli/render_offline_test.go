package cli

import (
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestRenderNeverContactsTheCluster points the target at a loopback listener
// that counts connections: render must make none.
func TestRenderNeverContactsTheCluster(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dials atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dials.Add(1)
			c.Close()
		}
	}()
	dir := t.TempDir()
	kubeconfig := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://" + ln.Addr().String() + "\ncontexts:\n- name: test\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: x\n"
	writeFiles(t, dir, map[string]string{
		"cluster.kubeconfig": kubeconfig,
		"release.toml":       goodTarget + "[release]\nname = \"demo\"\ncomposition = \"manifests\"\n",
		"manifests/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
	})
	res := run(t, "render", "--spec", filepath.Join(dir, "release.toml"))
	if res.code != 0 {
		t.Fatalf("render: exit %d: %s", res.code, res.stderr)
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("render opened %d connections to the kubeconfig's server, want none", n)
	}
}
