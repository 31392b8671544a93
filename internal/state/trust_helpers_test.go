package state

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/pynenc/piceli/internal/signer"
)

// testKey is the signing key of "this machine" in the tests, made once.
var testKey struct {
	once sync.Once
	key  *signer.Key
	dir  string
}

// machineKey returns the tests' signing key.
func machineKey(t *testing.T) *signer.Key {
	t.Helper()
	testKey.once.Do(func() {
		testKey.dir = t.TempDir() // removed with the first test that asked; the key stays in memory
		testKey.key, _, _ = signer.LoadOrCreate(filepath.Join(testKey.dir, "state.key"))
	})
	if testKey.key == nil {
		t.Fatal("no test signing key")
	}
	return testKey.key
}

// newKey makes another machine's key.
func newKey(t *testing.T) *signer.Key {
	t.Helper()
	k, _, err := signer.LoadOrCreate(filepath.Join(t.TempDir(), "state.key"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// testClusterUID is the cluster identity the tests bind snapshots to.
const testClusterUID = "cluster-uid-1"

// signed gives c this machine's key, trusted alone, and the test cluster's
// identity.
func signed(t *testing.T, c *Cluster) *Cluster {
	c.Key = machineKey(t)
	c.Signers = []signer.Signer{c.Key.Signer("test machine")}
	c.ClusterUID = testClusterUID
	return c
}
