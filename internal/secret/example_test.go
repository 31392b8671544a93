package secret_test

import (
	"context"
	"fmt"
	"os"

	"github.com/pynenc/piceli/internal/secret"
	"github.com/pynenc/piceli/internal/wire"
)

// A generated value is made once and kept: resolving again gives the same
// version, and only metadata is ever shown.
func ExampleResolver_Resolve() {
	state, _ := os.MkdirTemp("", "piceli-state")
	defer os.RemoveAll(state)
	store, _ := secret.Open(state)
	r := &secret.Resolver{Store: store}
	decl := wire.SecretInfo{Name: "db", Keys: []wire.SecretKeyInfo{{Key: "password", Source: wire.SourceGenerated, Length: 24}}}

	first, changed, _ := r.Resolve(context.Background(), decl, secret.ResolveOptions{})
	fmt.Println(first.Number, changed, len(first.Values()["password"]))
	again, changed, _ := r.Resolve(context.Background(), decl, secret.ResolveOptions{})
	fmt.Println(again.Number, changed, secret.ChangedKeys(first, again))
	fmt.Println(first.Keys[0].Fingerprint)
	// Output:
	// 1 true 24
	// 1 false []
	// generated length=24 alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
}
