package controller_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/signer"
	"github.com/pynenc/piceli/release"
)

// laptopRelease writes, on "a laptop", the release.toml of the Release
// app in h.ns with files as its composition, sharing state with the
// controller (whose signer it trusts, as the controller trusts the
// laptop's), and opens it with the laptop's own key.
func (h *harness) laptopRelease(t *testing.T, files map[string]string, laptopKey string, laptopSigner string) *release.Release {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.MkdirAll(filepath.Join(dir, "manifests"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "manifests", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := fmt.Sprintf(`[target]
kubeconfig = %q
context = %q
namespace = %q

[release]
name = "app"
composition = "manifests/"
state = "cluster"
state_signers = [%q, %q]
`, h.sb.Kubeconfig, h.sb.Context, h.ns, h.signer, laptopSigner)
	if err := os.WriteFile(filepath.Join(dir, "release.toml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := release.Open(filepath.Join(dir, "release.toml"), release.Options{StateKeyFile: laptopKey})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestALaptopAndTheControllerShareHistory(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	keyFile := filepath.Join(t.TempDir(), "laptop.key")
	key, _, err := signer.LoadOrCreate(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	laptopSigner := key.Signer("laptop").String()

	h.src.set(configMaps("one"))
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{StateSigners: []string{laptopSigner}, Policy: &v1alpha1.Policy{Actions: []string{"create", "update"}}})
	rel := h.waitFor(t, ns, "app", "revision 1 is applied", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady && len(r.Status.Runs) == 1
	})
	controllerRun := rel.Status.Runs[0].ID

	ctx := sandboxtest.Context(t, 2*time.Minute)
	laptop := h.laptopRelease(t, configMaps("from the laptop"), keyFile, laptopSigner)
	revs, err := laptop.History(ctx, release.HistoryOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 1 || revs[0].Run != controllerRun || revs[0].Damaged != "" {
		t.Fatalf("the laptop's history: %+v; want the controller's run %s, intact", revs, controllerRun)
	}

	// Suspend the controller's Release so that the laptop's revision
	// stays, then apply from the laptop: the controller's status lists
	// that run beside its own.
	rel = h.release(t, ns, "app")
	rel.Spec.Suspend = true
	if err := h.client.Update(ctx, rel); err != nil {
		t.Fatal(err)
	}
	p, err := laptop.Plan(ctx, release.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := laptop.Apply(ctx, p.Hash, release.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rel = h.release(t, ns, "app")
	rel.Spec.Suspend = false
	if err := h.client.Update(ctx, rel); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, ns, "app", "the controller lists the laptop's run "+res.Run, func(r *v1alpha1.Release) bool {
		return slices.ContainsFunc(r.Status.Runs, func(run v1alpha1.RunSummary) bool { return run.ID == res.Run })
	})
}
