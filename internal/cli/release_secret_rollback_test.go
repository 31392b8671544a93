package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Rolling back to the previous revision puts the secret version that
// revision used back in the cluster, rolls the Deployment back to its
// digest, and history records which version each revision used; the
// composition still wants the newer version, so the next plan updates the
// Secret again.
func TestRollbackRestoresTheSecretVersion(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newSecretRelease(t, sb, "", rolloutKeys, goComposition{})
	r.writeSecretFile(t, "secret/pw.txt", "version-one")
	r.apply(t, r.plan(t))
	digest1 := r.templateAnnotation(t, secretName)
	r.writeSecretFile(t, "secret/pw.txt", "version-two")
	r.apply(t, r.plan(t))
	digest2 := r.templateAnnotation(t, secretName)
	v1, v2 := revealed(t, r.spec, secretName, "1"), revealed(t, r.spec, secretName, "2")
	if v1["file"] != "version-one" || v2["file"] != "version-two" || v1["gen"] != v2["gen"] || digest1 == digest2 {
		t.Fatalf("setup: store versions 1 and 2 hold file %q and %q (generated equal %t), digests %s and %s; want the two files, one generated value and two digests",
			v1["file"], v2["file"], v1["gen"] == v2["gen"], digest1, digest2)
	}
	if live := r.liveSecretData(t, secretName); !maps.Equal(live, v2) {
		t.Fatalf("setup: the live Secret does not hold version 2")
	}
	// The rollback takes its values from the store: the current source is
	// not needed, and is gone (a rotated-away credentials file).
	if err := os.Remove(filepath.Join(r.dir, "secret", "pw.txt")); err != nil {
		t.Fatal(err)
	}

	propose := run(t, "release", "rollback", "--spec", r.spec, "-o", "json")
	m := regexp.MustCompile(`--to 1 --approve ([0-9a-f]{12})`).FindStringSubmatch(propose.stderr)
	if propose.code != ExitApproval || m == nil {
		t.Fatalf("rollback without --approve: exit %d, want 3 and the hash to approve\n%s", propose.code, propose.stderr)
	}
	var proposed plan.Plan
	if err := json.Unmarshal([]byte(propose.stdout), &proposed); err != nil {
		t.Fatalf("rollback -o json: %v\n%s", err, propose.stdout)
	}
	assertSecretUpdateHidden(t, &proposed, "data.file")
	assertTemplateDigestUpdate(t, &proposed, "Deployment/"+r.ns+"/web", secretName)
	if live := r.liveSecretData(t, secretName); !maps.Equal(live, v2) {
		t.Errorf("the unapproved rollback changed the live Secret")
	}

	if res := run(t, "release", "rollback", "--spec", r.spec, "--approve", m[1]); res.code != ExitOK {
		t.Fatalf("rollback --approve %s: exit %d\n%s", m[1], res.code, res.stderr)
	}
	if live := r.liveSecretData(t, secretName); !maps.Equal(live, v1) {
		t.Errorf("after the rollback the live Secret does not hold version 1 (file %q, want %q)", live["file"], v1["file"])
	}
	if got := r.templateAnnotation(t, secretName); got != digest1 {
		t.Errorf("after the rollback the pod template annotation is %s, want revision 1's %s", got, digest1)
	}

	revs, err := history.List(r.stateDir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		source  string
		version int
	}{{"apply", 1}, {"apply", 2}, {"rollback to 1", 1}}
	if len(revs) != len(want) {
		t.Fatalf("history has %d revisions, want %d", len(revs), len(want))
	}
	for i, w := range want {
		if revs[i].Source != w.source || revs[i].Secrets[secretName] != w.version {
			t.Errorf("revision %d: source %q, secrets %v; want %q using version %d of %s", i+1, revs[i].Source, revs[i].Secrets, w.source, w.version, secretName)
		}
	}
	hist := run(t, "release", "history", "--spec", r.spec, "-o", "json")
	var got struct{ Revisions []history.Summary }
	if err := json.Unmarshal([]byte(hist.stdout), &got); err != nil || len(got.Revisions) != 3 || got.Revisions[2].Secrets[secretName] != 1 {
		t.Errorf("history -o json does not show revision 3 using version 1 of %s (%v):\n%s", secretName, err, hist.stdout)
	}

	if versions, err := filepath.Glob(filepath.Join(r.stateDir, "secrets", secretName, "*.json")); err != nil || len(versions) != 2 {
		t.Errorf("the store holds versions %q after the rollback, want the two applied ones", versions)
	}
	r.writeSecretFile(t, "secret/pw.txt", "version-two")
	p := r.plan(t)
	assertSecretUpdateHidden(t, p, "data.file")
	if live := r.liveSecretData(t, secretName); !maps.Equal(live, v1) {
		t.Errorf("planning after the rollback changed the live Secret")
	}
}
