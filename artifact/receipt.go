package artifact

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/localpath"
	"github.com/pynenc/piceli/internal/redact"
)

// ReceiptSchema versions receipts.
const ReceiptSchema = "piceli.receipt/v1"

// The outcomes of an import.
const (
	OutcomeSucceeded   = "succeeded"
	OutcomeFailed      = "failed"
	OutcomeInterrupted = "interrupted"
)

// Receipt records one import: which images went where, through which
// tools, how many bytes were sent, when, and how it ended. It never holds
// an environment value, a token, a credential or key material: only paths,
// names, digests, versions and counts, and an error text with every
// environment value and credential removed.
type Receipt struct {
	Schema    string         `json:"schema"`
	Layout    string         `json:"layout"`
	Target    ReceiptTarget  `json:"target"`
	Tools     []Tool         `json:"tools,omitempty"`
	Images    []ReceiptImage `json:"images"`
	Blobs     []ReceiptBlob  `json:"blobs,omitempty"`
	BytesSent int64          `json:"bytes_sent"`
	Started   time.Time      `json:"started"`
	Finished  time.Time      `json:"finished"`
	Outcome   string         `json:"outcome"`
	Error     string         `json:"error,omitempty"`
	Path      string         `json:"-"` // where the receipt was written
}

// ReceiptTarget says where an import went. Only the fields of its kind
// are set.
type ReceiptTarget struct {
	Kind       string `json:"kind"`
	Address    string `json:"address,omitempty"`   // containerd socket, or registry host:port
	Namespace  string `json:"namespace,omitempty"` // containerd namespace
	Host       string `json:"host,omitempty"`      // ssh destination
	Port       int    `json:"port,omitempty"`      // ssh port
	Remote     string `json:"remote,omitempty"`    // the command run on the ssh host
	ViaForward string `json:"via_forward,omitempty"`
	Context    string `json:"context,omitempty"`        // kubeconfig context of a forward
	KubeNS     string `json:"kube_namespace,omitempty"` // namespace of a forward
	Auth       bool   `json:"authenticated,omitempty"`  // whether credentials were used (never which)
}

// ReceiptImage is one image delivered.
type ReceiptImage struct {
	Name      string `json:"name"`
	Reference string `json:"reference"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// ReceiptBlob is what a registry push did with one blob: "sent", or found
// it "present" already, or "mounted" it from another repository.
type ReceiptBlob struct {
	Repository string `json:"repository"`
	Digest     string `json:"digest"`
	Size       int64  `json:"size"`
	Action     string `json:"action"`
	BytesSent  int64  `json:"bytes_sent"`
}

// write saves the receipt as receipts/<kind>-<time>.json in dir, owner-only.
func (r *Receipt) write(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write receipt: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	name := fmt.Sprintf("import-%s-%s.json", localpath.Key(string(r.Target.Kind)), r.Started.UTC().Format("20060102T150405.000000000Z"))
	if r.Path, err = localpath.Join(dir, name); err != nil {
		return fmt.Errorf("write receipt: %w", err)
	}
	return atomicfile.Write(r.Path, append(data, '\n'), 0o600)
}

// redactor removes secrets from text that may reach a receipt or an
// error: every environment value long enough to be one, and every
// credential the import was given, in every encoding redact finds.
type redactor struct{ r redact.Redactor }

func newRedactor(extra ...string) *redactor {
	return &redactor{r: redact.Strings(append(redact.Environ(), extra...)...)}
}

func (r *redactor) clean(s string) string { return r.r.Redact(s) }

// ReadPasswordFile reads a registry password file: a regular file of at
// most 1 MiB, its trailing line break dropped. A FIFO, a device or a
// larger file is refused without blocking.
func ReadPasswordFile(path string) (string, error) {
	data, err := inputfile.Read(path, inputfile.CredentialLimit)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(data), "\r\n"), nil
}
