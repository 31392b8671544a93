package cli

import (
	"maps"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A failed run that changed a secret is undone completely under
// on_failure = "compensate": the Secret gets back the version the previous
// revision used, and the workload its digest annotation, instead of the
// workload being restored while the Secret keeps the new values.
func TestCompensationRestoresTheSecretVersion(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newSecretRelease(t, sb, compensateFast, rolloutKeys, brokenDeployment(t, sb))
	r.writeSecretFile(t, "secret/pw.txt", "version-one")
	r.apply(t, r.plan(t))
	before, digest := r.liveSecretData(t, secretName), r.templateAnnotation(t, secretName)

	r.writeSecretFile(t, "secret/pw.txt", "version-two")
	r.setBroken(t, true, compensateFast)
	p := r.plan(t)
	res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	if res.code != ExitFailed || !strings.Contains(res.stderr, "changes were undone") {
		t.Fatalf("apply with an unstartable Deployment: exit %d, want 1 with its changes undone\n%s", res.code, res.stderr)
	}
	if live := r.liveSecretData(t, secretName); !maps.Equal(live, before) {
		t.Errorf("after compensation the live Secret holds file %q, want the previous version's %q", live["file"], before["file"])
	}
	if got := r.templateAnnotation(t, secretName); got != digest {
		t.Errorf("after compensation the pod template annotation is %s, want the previous %s", got, digest)
	}
}
