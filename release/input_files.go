package release

import (
	"os"
	"strings"

	"github.com/pynenc/piceli/internal/inputfile"
)

// ReadPassphraseFile reads a passphrase file (state export and import):
// a regular file of at most 1 MiB, its trailing line break dropped. A
// FIFO, a device or a larger file is refused without blocking.
func ReadPassphraseFile(path string) (string, error) {
	data, err := inputfile.Read(path, inputfile.CredentialLimit)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(data), "\r\n"), nil
}

// OpenStateExport opens a file ExportState wrote, for ImportState: a
// regular file (ImportState bounds what it decrypts), opened without
// blocking on a FIFO.
func OpenStateExport(path string) (*os.File, error) {
	return inputfile.Open(path, inputfile.Options{})
}
