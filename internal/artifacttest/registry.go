package artifacttest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Registry is a distribution registry of one test on 127.0.0.1.
type Registry struct {
	Addr string // host:port
	Dir  string
}

// StartRegistry starts Debian's docker-registry (the distribution
// registry that registry:2 images run) with a private config: its storage
// under a fresh directory, HTTP on a free loopback port. htpasswd, when not
// empty, is an htpasswd file the registry requires basic auth from.
func StartRegistry(t testing.TB, htpasswd string) *Registry {
	t.Helper()
	bin := Need(t, "docker-registry", "docker-registry")
	dir := t.TempDir()
	r := &Registry{Addr: addr(FreePort(t)), Dir: dir}
	auth := ""
	if htpasswd != "" {
		auth = fmt.Sprintf("auth:\n  htpasswd:\n    realm: piceli-test\n    path: %s\n", htpasswd)
	}
	config := filepath.Join(dir, "config.yml")
	writeFile(t, config, fmt.Sprintf(`version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
%s`, filepath.Join(dir, "storage"), r.Addr, auth))
	logFile := filepath.Join(dir, "registry.log")
	start(t, exec.Command(bin, "serve", config), logFile)
	client := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 2 * time.Second}
	waitFor(t, 20*time.Second, "docker-registry", logFile, func(context.Context) bool {
		resp, err := client.Get("http://" + r.Addr + "/v2/")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized)
	})
	return r
}

// Blobs counts the blob files the registry stores.
func (r *Registry) Blobs(t testing.TB) int {
	t.Helper()
	n := 0
	filepath.Walk(filepath.Join(r.Dir, "storage", "docker", "registry", "v2", "blobs"), func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "data" {
			n++
		}
		return nil
	})
	return n
}
