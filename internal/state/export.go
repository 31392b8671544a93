package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"filippo.io/age"
)

// MinPassphrase is the shortest passphrase Export accepts.
const MinPassphrase = 12

// ErrPassphrase is matched by the error of an Import whose passphrase does
// not open the file, and of an Export whose passphrase is too short.
var ErrPassphrase = errors.New("passphrase")

// Export writes files as one snapshot (Pack) encrypted with age to a
// scrypt recipient made from passphrase. Nothing of the state is written
// in plain: w only ever receives age's ciphertext.
func Export(w io.Writer, files []File, passphrase string) error {
	if len(passphrase) < MinPassphrase {
		return fmt.Errorf("export state: the %w must be at least %d characters", ErrPassphrase, MinPassphrase)
	}
	data, err := Pack(files)
	if err != nil {
		return err
	}
	rcpt, err := age.NewScryptRecipient(passphrase)
	if err != nil {
		return fmt.Errorf("export state: %w", err)
	}
	enc, err := age.Encrypt(w, rcpt)
	if err != nil {
		return fmt.Errorf("export state: %w", err)
	}
	if _, err := enc.Write(data); err != nil {
		return fmt.Errorf("export state: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("export state: %w", err)
	}
	return nil
}

// MaxExportSize bounds what Import decrypts: a state directory's packed
// snapshot is far smaller.
const MaxExportSize = 256 << 20

// Import decrypts and unpacks a file Export wrote. A wrong passphrase or a
// damaged file is an error; nothing is returned from either.
func Import(r io.Reader, passphrase string) ([]File, error) {
	id, err := age.NewScryptIdentity(passphrase)
	if err != nil {
		return nil, fmt.Errorf("import state: %w", err)
	}
	dec, err := age.Decrypt(r, id)
	if err != nil {
		return nil, fmt.Errorf("import state: the %w does not open this file, or it is not a state export: %v", ErrPassphrase, err)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(dec, MaxExportSize+1))
	if err != nil {
		return nil, fmt.Errorf("import state: the file is damaged: %w", err)
	}
	if n > MaxExportSize {
		return nil, fmt.Errorf("import state: the file holds more than %d MiB, more than any state export", MaxExportSize>>20)
	}
	return Unpack(buf.Bytes())
}
