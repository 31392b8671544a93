package platform

import (
	"strings"
	"testing"

	"github.com/pynenc/piceli/app"
)

// context is what release.toml gives Build, with a value to vary.
func context(storage string) *app.Context {
	return app.NewContext(app.ContextDocument{
		Release:   "platform",
		Namespace: "platform",
		Images: map[string]string{
			"api":      "registry.example/api@sha256:" + strings.Repeat("a", 64),
			"postgres": "registry.example/postgres@sha256:" + strings.Repeat("b", 64),
		},
		Values: map[string]string{"db_storage": storage},
	})
}

// TestBuildDeclaresTheAPIOnTheComponent is how a consumer tests its own
// composition: the component's objects are there beside its own.
func TestBuildDeclaresTheAPIOnTheComponent(t *testing.T) {
	c, err := Build(context("2Gi"))
	if err != nil {
		t.Fatalf("Build() error = %v", err)
	}
	var got []string
	for _, o := range c.Objects() {
		got = append(got, o.Object.GetKind()+"/"+o.Object.GetName())
	}
	for _, want := range []string{"StatefulSet/orders-db", "Service/orders-db", "Secret/orders-db-credentials", "Deployment/api", "NetworkPolicy/allow-api-to-orders-db"} {
		if !strings.Contains(strings.Join(got, " "), want) {
			t.Errorf("Build() declared %v, want %s among them", got, want)
		}
	}
}

// TestBuildRefusesABadStorageValue shows a bad [values] entry reaching the
// component's validation through the consumer's option.
func TestBuildRefusesABadStorageValue(t *testing.T) {
	_, err := Build(context("big"))
	if err == nil || !strings.Contains(err.Error(), `postgres "orders-db": postgres.Storage "big": not a quantity`) {
		t.Fatalf("Build() error = %v, want the component's message about postgres.Storage", err)
	}
}
