package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileInput makes, in dir, the input one case hands piceli and returns
// the arguments that read it.
type hostileInput func(t *testing.T, dir string) []string

// Hostile inputs that are not regular files (a layer blob linked to
// /dev/zero or a FIFO, a kubeconfig whose tokenFile is /dev/zero, a FIFO
// as --spec) hung the built binary until SIGKILL (issue 28, hole 5). Each
// now ends within 2 s of a SIGINT sent after 0.5 s, whatever it was doing;
// in practice it is refused at once, saying the file is not a regular
// file, before the signal.
func TestSecurityHostileReadsEndPromptly(t *testing.T) {
	// Not parallel: it times the binary's start (0.5 s) and end (2 s).
	tests := []struct {
		name  string
		input hostileInput
	}{
		{name: "artifacts inspect of a layout whose layer blob links to /dev/zero", input: layoutWith("inspect", zeroLink)},
		{name: "artifacts inspect of a layout whose layer blob is a FIFO", input: layoutWith("inspect", fifo)},
		{name: "artifacts import of a layout whose layer blob links to /dev/zero", input: layoutWith("import", zeroLink)},
		{name: "artifacts import of a layout whose layer blob is a FIFO", input: layoutWith("import", fifo)},
		{name: "observe status with a kubeconfig whose tokenFile is /dev/zero", input: zeroTokenKubeconfig},
		{name: "render with a FIFO as --spec", input: fifoSpec},
	}
	bin := piceliBinary(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.input(t, t.TempDir())
			p := startBinary(t, bin, "", args...)
			time.Sleep(500 * time.Millisecond)
			refused := true // it ended by itself before the signal
			select {
			case <-p.done:
			default:
				refused = false
				p.cmd.Process.Signal(syscall.SIGINT)
			}
			how := p.wait(t, 2*time.Second)
			if how == "killed" || how == "exit 0" {
				t.Errorf("piceli %s: %s, want a refusal or an interrupted exit\n%s", strings.Join(args, " "), how, p.out.String())
			}
			// On a loaded machine the signal may come before the read; a
			// process that ended by itself must have refused the input.
			if refused && !strings.Contains(p.out.String(), "not a regular file") {
				t.Errorf("piceli %s did not refuse the input as not a regular file:\n%s", strings.Join(args, " "), p.out.String())
			}
		})
	}
}

func zeroLink(t *testing.T, path string) {
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
}

func fifo(t *testing.T, path string) {
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// layoutWith lays out an OCI image whose layer blob is made by layer and
// returns the arguments of artifacts inspect or import (to a registry
// on a closed loopback port, never reached) of it.
func layoutWith(verb string, layer func(*testing.T, string)) hostileInput {
	return func(t *testing.T, dir string) []string {
		blobs := filepath.Join(dir, "blobs", "sha256")
		if err := os.MkdirAll(blobs, 0o755); err != nil {
			t.Fatal(err)
		}
		config := writeBlob(t, blobs, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`))
		layerHex := strings.Repeat("ab", 32)
		layer(t, filepath.Join(blobs, layerHex))
		manifest := writeBlob(t, blobs, mustJSON(t, map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
			"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + config.hex, "size": config.size},
			"layers": []any{map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": "sha256:" + layerHex, "size": 1 << 30}}}))
		index := map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": []any{map[string]any{
			"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + manifest.hex, "size": manifest.size,
			"annotations": map[string]string{"org.opencontainers.image.ref.name": "app", "dev.piceli.repository": "demo/app"}}}}
		writeFile(t, filepath.Join(dir, "index.json"), mustJSON(t, index))
		writeFile(t, filepath.Join(dir, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`))
		if verb == "inspect" {
			return []string{"artifacts", "inspect", dir}
		}
		return []string{"artifacts", "import", dir, "--deliver", "registry", "--registry", "127.0.0.1:1", "--receipts", filepath.Join(t.TempDir(), "receipts")}
	}
}

type blobRef struct {
	hex  string
	size int
}

func writeBlob(t *testing.T, blobs string, data []byte) blobRef {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	writeFile(t, filepath.Join(blobs, h), data)
	return blobRef{hex: h, size: len(data)}
}

func mustJSON(t *testing.T, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// zeroTokenKubeconfig writes a kubeconfig whose user's tokenFile is
// /dev/zero and a session archive, for observe status.
func zeroTokenKubeconfig(t *testing.T, dir string) []string {
	kc := filepath.Join(dir, "kubeconfig")
	writeFile(t, kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {tokenFile: /dev/zero}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`))
	arc := filepath.Join(dir, "archive.json")
	writeFile(t, arc, []byte(`{"schema":"piceli.session-archive/v1","run":"r","release":"demo","target":{"clusterUID":"u","namespace":"demo"},
"namespaces":["demo"],"plan":"p","status":"finished","started":"2026-01-01T00:00:00Z","ended":"2026-01-01T00:00:00Z","objects":[]}`))
	return []string{"observe", "status", "--archive", arc, "--kubeconfig", kc, "--context", "x"}
}

// fifoSpec makes a FIFO named release.toml and returns render's arguments.
func fifoSpec(t *testing.T, dir string) []string {
	spec := filepath.Join(dir, "release.toml")
	fifo(t, spec)
	return []string{"render", "--spec", spec, "--out", filepath.Join(dir, "out")}
}
