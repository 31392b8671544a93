package state

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExportIsEncryptedAndRoundTrips(t *testing.T) {
	canary := "canary-value-4f1c2d9e8b7a"
	files := []File{{Path: "secrets/db/000001.json", Data: []byte(`{"values":{"password":"` + canary + `"}}`)}}
	var out bytes.Buffer
	if err := Export(&out, files, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{canary, base64.StdEncoding.EncodeToString([]byte(canary)), hex.EncodeToString([]byte(canary)), "secrets/db"} {
		if bytes.Contains(out.Bytes(), []byte(form)) {
			t.Errorf("export holds %q in plain", form)
		}
	}
	back, err := Import(bytes.NewReader(out.Bytes()), "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, back); diff != "" {
		t.Errorf("Import(Export(files)) (-want +got):\n%s", diff)
	}
	if _, err := Import(bytes.NewReader(out.Bytes()), "wrong horse battery"); !errors.Is(err, ErrPassphrase) {
		t.Errorf("Import with a wrong passphrase = %v, want ErrPassphrase", err)
	}
	if err := Export(&bytes.Buffer{}, files, "short"); !errors.Is(err, ErrPassphrase) {
		t.Errorf("Export with a short passphrase = %v, want ErrPassphrase", err)
	}
}
