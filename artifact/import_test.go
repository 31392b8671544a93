package artifact_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/refusal"
)

// canary is a secret that must reach no receipt or output: the test puts
// it in the environment (which the granted tools inherit) and, for a
// registry, in the password.
const canary = "piceli-canary-5f0e7c2b9a41"

// receiptText reads the receipt an import wrote.
func receiptText(t *testing.T, rec *artifact.Receipt) string {
	t.Helper()
	data, err := os.ReadFile(rec.Path)
	if err != nil {
		t.Fatalf("read receipt: %v", err)
	}
	var back artifact.Receipt
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("receipt %s is not JSON: %v", rec.Path, err)
	}
	return string(data)
}

func assertNoCanary(t *testing.T, where, text string) {
	t.Helper()
	if strings.Contains(text, canary) {
		t.Errorf("%s holds the canary secret:\n%s", where, text)
	}
}

// watchTemp fails the test if a file larger than 1 MiB appears in dir
// while the returned stop function has not been called.
func watchTemp(t *testing.T, dir string) func() {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan string, 1)
	go func() {
		biggest := ""
		for {
			filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() && info.Size() > 1<<20 {
					biggest = p
				}
				return nil
			})
			select {
			case <-stop:
				done <- biggest
				return
			default:
			}
		}
	}()
	return func() {
		close(stop)
		if big := <-done; big != "" {
			t.Errorf("a file over 1 MiB was written during a streamed import: %s", big)
		}
	}
}

// Acceptance 4 and 5: the granted ctr takes the images streamed from the
// layout into a real containerd; no temporary file over 1 MiB is written
// and the receipt records the tool and holds no secret.
func TestImportIntoContainerdStreamsThroughGrantedCtr(t *testing.T) {
	c := artifacttest.StartContainerd(t)
	_, res := pinAndBuild(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("PICELI_TEST_SECRET", canary)
	stop := watchTemp(t, tmp)
	rec, err := artifact.Import(t.Context(), res.Layout, artifact.ImportOptions{
		Target:     artifact.TargetContainerd,
		Grants:     []artifact.Grant{{Tool: "ctr", Path: c.Ctr}},
		Containerd: artifact.ContainerdOptions{Address: c.Socket},
	})
	stop()
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	images := c.Images(t, "k8s.io")
	for _, im := range res.Images {
		if !slices.Contains(images, im.Reference) {
			t.Errorf("containerd images %v lack %s", images, im.Reference)
		}
	}
	text := receiptText(t, rec)
	assertNoCanary(t, "the receipt", text)
	if rec.Outcome != artifact.OutcomeSucceeded || len(rec.Tools) != 1 || rec.Tools[0].Path != c.Ctr || !strings.Contains(rec.Tools[0].Version, "containerd") {
		t.Errorf("receipt outcome %s tools %+v; want succeeded through %s with its version", rec.Outcome, rec.Tools, c.Ctr)
	}
	if rec.BytesSent < res.StoredBytes {
		t.Errorf("receipt says %d bytes sent, less than the %d bytes of blobs", rec.BytesSent, res.StoredBytes)
	}
}

// Acceptance 4: the same stream goes over ssh to 127.0.0.1, into ctr on
// the other end, with host keys checked.
func TestImportOverSSHIntoContainerd(t *testing.T) {
	c := artifacttest.StartContainerd(t)
	s := artifacttest.StartSSHD(t)
	ssh := artifacttest.Need(t, "ssh", "openssh-client")
	_, res := pinAndBuild(t)
	t.Setenv("PICELI_TEST_SECRET", canary)
	rec, err := artifact.Import(t.Context(), res.Layout, artifact.ImportOptions{
		Target:     artifact.TargetSSHContainerd,
		Images:     []string{"gateway"},
		Grants:     []artifact.Grant{{Tool: "ssh", Path: ssh}},
		Containerd: artifact.ContainerdOptions{Address: c.Socket},
		SSH:        artifact.SSHOptions{Host: "root@127.0.0.1", Port: s.Port, Identity: s.Identity, KnownHosts: s.KnownHosts, Ctr: c.Ctr},
	})
	if err != nil {
		t.Fatalf("Import over ssh: %v", err)
	}
	images := c.Images(t, "k8s.io")
	want := byName(res)["gateway"].Reference
	if !slices.Contains(images, want) || slices.Contains(images, byName(res)["orders"].Reference) {
		t.Errorf("containerd images %v: want %s and no other service", images, want)
	}
	text := receiptText(t, rec)
	assertNoCanary(t, "the receipt", text)
	key, _ := os.ReadFile(s.Identity)
	if strings.Contains(text, strings.Split(string(key), "\n")[1]) {
		t.Errorf("the receipt holds ssh key material")
	}
	if rec.Target.Host != "root@127.0.0.1" || rec.Target.Port != s.Port || !strings.Contains(rec.Target.Remote, "images' 'import' '-'") {
		t.Errorf("receipt target = %+v", rec.Target)
	}
}

// Acceptance 5: without --grant nothing runs, and the error names the
// missing grant. A ctr placed first on PATH would notice being run.
func TestImportWithoutGrantRunsNothing(t *testing.T) {
	_, res := pinAndBuild(t)
	bin := t.TempDir()
	ran := filepath.Join(bin, "ran")
	for _, tool := range []string{"ctr", "ssh", "docker"} {
		script := "#!/bin/sh\ntouch " + ran + "\n"
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	tests := []struct {
		target, tool string
		grants       []artifact.Grant
	}{
		{artifact.TargetContainerd, "ctr", nil},
		{artifact.TargetDocker, "docker", nil},
		{artifact.TargetSSHContainerd, "ssh", []artifact.Grant{{Tool: "ctr", Path: "ctr"}}},
	}
	for _, tt := range tests {
		_, err := artifact.Import(t.Context(), res.Layout, artifact.ImportOptions{Target: tt.target, Grants: tt.grants, SSH: artifact.SSHOptions{Host: "root@127.0.0.1"}})
		var ge *artifact.GrantError
		switch {
		case tt.grants == nil && (!errors.As(err, &ge) || ge.Tool != tt.tool || !strings.Contains(err.Error(), "grant it as "+tt.tool+"=PATH")):
			t.Errorf("Import(--deliver %s, no grant) error = %v, want a *GrantError naming the grant %s=PATH", tt.target, err, tt.tool)
		case tt.grants != nil && (err == nil || !strings.Contains(err.Error(), "does not run ctr")):
			t.Errorf("Import(--deliver %s, wrong grant) error = %v, want a refusal of the grant", tt.target, err)
		}
		if !refusal.Is(err) {
			t.Errorf("refusal.Is(%v) = false", err)
		}
	}
	if _, err := os.Stat(ran); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a tool ran without a grant")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(res.Layout), "receipts")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused import wrote a receipt")
	}
}
