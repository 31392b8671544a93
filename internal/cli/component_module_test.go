package cli

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/pynenc/piceli/internal/manifest"
)

// TestRenderComponentModuleConsumer renders examples/platform, a project
// in its own Go module whose composition requires the component module
// examples/components/postgres through go.mod, and checks that the
// component's objects are there, configured by the consumer's options and
// wired to the consumer's API (docs/packages.md).
func TestRenderComponentModuleConsumer(t *testing.T) {
	spec := filepath.Join(repoRoot(t), "examples", "platform", "release.toml")
	res := run(t, "render", "--spec", spec)
	if res.code != 0 {
		t.Fatalf("render examples/platform: exit %d: %s", res.code, res.stderr)
	}
	docs, err := manifest.Decode("render output", []byte(res.stdout))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]map[string]any{}
	for _, d := range docs {
		byKey[d.Object.GetKind()+"/"+d.Object.GetName()] = d.Object.Object
	}
	for _, key := range []string{"StatefulSet/orders-db", "Service/orders-db", "Secret/orders-db-credentials", "Deployment/api", "Service/api"} {
		if byKey[key] == nil {
			t.Errorf("render examples/platform has no %s; it has %v", key, slices.Sorted(maps.Keys(byKey)))
		}
	}
	set, api := byKey["StatefulSet/orders-db"], byKey["Deployment/api"]
	if set == nil || api == nil {
		t.FailNow()
	}
	claims := nested(t, set, "spec", "volumeClaimTemplates").([]any)
	if got := nested(t, claims[0].(map[string]any), "spec", "resources", "requests", "storage"); got != "2Gi" {
		t.Errorf("the database's claim requests %v, want the consumer's 2Gi (db_storage)", got)
	}
	dbEnv := containerEnv(t, set)
	if dbEnv["POSTGRES_DB"] != "orders" || dbEnv["POSTGRES_USER"] != "app" {
		t.Errorf("database env = %v, want POSTGRES_DB=orders (the consumer's option) and POSTGRES_USER=app (the component's default)", dbEnv)
	}
	apiEnv := containerEnv(t, api)
	if apiEnv["DATABASE_HOST"] != "orders-db" || !strings.Contains(apiEnv["DATABASE_PASSWORD"], "orders-db-credentials") {
		t.Errorf("api env = %v, want DATABASE_HOST=orders-db and DATABASE_PASSWORD from orders-db-credentials", apiEnv)
	}
	policy := byKey["NetworkPolicy/allow-api-to-orders-db"]
	if policy == nil {
		t.Fatalf("render examples/platform has no NetworkPolicy/allow-api-to-orders-db; it has %v", slices.Sorted(maps.Keys(byKey)))
	}
	rule := nested(t, policy, "spec", "ingress").([]any)[0].(map[string]any)
	if port := fmt.Sprint(rule["ports"].([]any)[0].(map[string]any)["port"]); port != "5432" {
		t.Errorf("the api may reach the database on port %s, want the component's 5432", port)
	}
	if to := nested(t, policy, "spec", "podSelector", "matchLabels", "app.kubernetes.io/name"); to != "orders-db" {
		t.Errorf("the api's rule selects %v, want the component's orders-db pods", to)
	}
	if strings.Contains(res.stdout, "\n  data:") {
		t.Errorf("the generated password Secret carries data in render output:\n%s", res.stdout)
	}
}

// TestComponentModuleBadOptionExitsTwo renders a consumer whose option of
// the component is wrong: Composition's error, raised by the component
// module, reaches the command, naming the component and the option.
func TestComponentModuleBadOptionExitsTwo(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "examples", "platform", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "examples", "platform", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.NewReplacer(
		"=> ../components/postgres", "=> "+filepath.Join(root, "examples", "components", "postgres"),
		"=> ../..", "=> "+root,
	).Replace(string(gomod))
	writeFiles(t, dir, map[string]string{
		"go.mod": body,
		"go.sum": string(sum),
		"infra.go": `package bad

import (
	"example.com/piceli-components/postgres"
	"github.com/pynenc/piceli/app"
)

func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("bad")
	postgres.Add(a, "db", postgres.Image("registry.example/pg:16"), postgres.Storage("lots"))
	return a.Composition(ctx)
}
`,
		"release.toml": "[target]\nkubeconfig = \"kubeconfig\"\ncontext = \"none\"\nnamespace = \"bad\"\n\n[release]\nname = \"bad\"\ncomposition = \"infra.go:Build\"\n",
	})
	res := run(t, "render", "--spec", filepath.Join(dir, "release.toml"))
	if res.code != 2 {
		t.Fatalf("render with a bad component option: exit %d, want 2; stderr: %s", res.code, res.stderr)
	}
	if want := `postgres "db": postgres.Storage "lots": not a quantity`; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr = %s\nwant it to contain %q", res.stderr, want)
	}
}

// TestPlatformRunsTheImagesCompareRuns keeps examples/platform on the
// images examples/compare checks against the shop's build, so that
// scripts/examples.sh applies it on the real node after the shop.
func TestPlatformRunsTheImagesCompareRuns(t *testing.T) {
	var platform, compare struct {
		Images map[string]string `toml:"images"`
	}
	root := repoRoot(t)
	if _, err := toml.DecodeFile(filepath.Join(root, "examples", "platform", "release.toml"), &platform); err != nil {
		t.Fatal(err)
	}
	if _, err := toml.DecodeFile(filepath.Join(root, "examples", "compare", "piceli", "release.toml"), &compare); err != nil {
		t.Fatal(err)
	}
	for name, ref := range platform.Images {
		if compare.Images[name] != ref {
			t.Errorf("examples/platform image %s = %s, want examples/compare's %q", name, ref, compare.Images[name])
		}
	}
}

// containerEnv returns the first container's environment of a workload:
// each value, or its valueFrom as text.
func containerEnv(t *testing.T, obj map[string]any) map[string]string {
	t.Helper()
	c := nested(t, obj, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	out := map[string]string{}
	for _, e := range c["env"].([]any) {
		m := e.(map[string]any)
		if v, ok := m["value"].(string); ok {
			out[m["name"].(string)] = v
		} else {
			out[m["name"].(string)] = fmt.Sprint(m["valueFrom"])
		}
	}
	return out
}
