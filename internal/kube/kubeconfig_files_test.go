package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pynenc/piceli/internal/inputfile"
)

// writeKubeconfig writes a kubeconfig of one context "x" whose cluster and
// user entries are given as YAML flow mappings.
func writeKubeconfig(t *testing.T, dir, cluster, user string) string {
	t.Helper()
	path := filepath.Join(dir, "kubeconfig")
	text := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: " + cluster + "}]\nusers: [{name: u, user: " + user + "}]\n" +
		"contexts: [{name: x, context: {cluster: c, user: u}}]\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Files a kubeconfig names are read by Piceli, bounded, and handed to
// client-go as data: a token file or CA bundle that is /dev/zero, a FIFO
// or too large is refused naming the entry and key, never read without
// end; relative paths resolve against the kubeconfig's directory.
func TestConnectReadsKubeconfigFilesBounded(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("s3cr3t-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "huge"), make([]byte, inputfile.CredentialLimit+1), 0o600); err != nil {
		t.Fatal(err)
	}
	const server = `{server: "https://127.0.0.1:1"}`
	tests := []struct {
		name          string
		cluster, user string
		wantErr       error
		inErr         string
	}{
		{name: "a token file is read once into the config", cluster: server, user: `{tokenFile: token}`},
		{name: "a tokenFile of /dev/zero is refused", cluster: server, user: `{tokenFile: /dev/zero}`, wantErr: inputfile.ErrNotRegular, inErr: `user "u", key tokenFile`},
		{name: "a tokenFile that is a FIFO is refused without blocking", cluster: server, user: `{tokenFile: fifo}`, wantErr: inputfile.ErrNotRegular, inErr: "a FIFO"},
		{name: "a client key over its bound is refused", cluster: server, user: `{client-certificate: token, client-key: huge}`, wantErr: inputfile.ErrTooLarge, inErr: "key client-key"},
		{name: "a CA bundle of /dev/zero is refused", cluster: `{server: "https://127.0.0.1:1", certificate-authority: /dev/zero}`, user: `{token: t}`, wantErr: inputfile.ErrNotRegular, inErr: `cluster "c", key certificate-authority`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeKubeconfig(t, dir, tt.cluster, tt.user)
			c, err := Connect(t.Context(), Options{Kubeconfig: path, Context: "x"})
			if !errors.Is(err, tt.wantErr) || (err != nil && !strings.Contains(err.Error(), tt.inErr)) {
				t.Fatalf("Connect() = %v, want %v naming %q", err, tt.wantErr, tt.inErr)
			}
			if err == nil && (c.Config.BearerToken != "s3cr3t-token" || c.Config.BearerTokenFile != "") {
				t.Errorf("Connect() config has token %q, file %q; want the file's token inline and no file", c.Config.BearerToken, c.Config.BearerTokenFile)
			}
		})
	}
}

// The "using server" line names the kubeconfig's proxy-url, without its
// credentials, when there is one.
func TestUsingNamesTheProxy(t *testing.T) {
	for _, tt := range []struct {
		name, cluster, want string
	}{
		{name: "no proxy", cluster: `{server: "https://127.0.0.1:1"}`, want: "using server https://127.0.0.1:1, context x (kubeconfig "},
		{name: "a proxy with credentials", cluster: `{server: "https://127.0.0.1:1", proxy-url: "http://me:pw@127.0.0.1:3128"}`,
			want: "using server https://127.0.0.1:1 through proxy http://127.0.0.1:3128, context x (kubeconfig "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Connect(t.Context(), Options{Kubeconfig: writeKubeconfig(t, t.TempDir(), tt.cluster, `{token: t}`), Context: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Using(); !strings.HasPrefix(got, tt.want) || strings.Contains(got, "pw") {
				t.Errorf("Using() = %q, want it to start %q and hold no password", got, tt.want)
			}
		})
	}
}
