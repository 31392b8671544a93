package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/state"
)

// With the state in the cluster, a file canary and a generated value go
// through plan, apply, history and every state command with --verbose:
// no output, no file outside the private store, no ConfigMap, Lease or
// annotation/label of any Secret in the namespace, and not the export
// (only its decryption) holds them in any form. The state Secrets do hold
// them, so the sweep is looking where the values are.
func TestSharedStateCanariesStayInSecrets(t *testing.T) {
	// Not parallel: --verbose points client-go's process-wide klog at this
	// run's stderr, and any other test's run points it away again (see run).
	sb := sandboxtest.Cluster(t)
	r := newSecretRelease(t, sb, sharedState, []secretKey{
		{key: "gen", source: `app.Generated("gen", 40)`},
		{key: "file", source: `app.FromFile("file", "secret/pw.txt")`},
	}, goComposition{})
	canaries := map[string]string{"file": canary(t, "file")}
	r.writeSecretFile(t, "secret/pw.txt", canaries["file"])
	pass := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(pass, []byte("a long enough passphrase\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	exportDir := t.TempDir()

	var out outputs
	piceli := func(args ...string) {
		t.Helper()
		res := run(t, append([]string{"--verbose"}, args...)...)
		out.add(strings.Join(args[:2], " "), res.stdout+res.stderr)
		if res.code != ExitOK {
			t.Fatalf("piceli %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
		}
	}
	r.apply(t, r.plan(t))
	canaries["generated"] = revealed(t, r.spec, secretName, "")["gen"]
	piceli("release", "plan", "--spec", r.spec)
	piceli("release", "history", "--spec", r.spec)
	piceli("state", "show", "--spec", r.spec)
	piceli("state", "show", "--spec", r.spec, "-o", "json")
	piceli("state", "pull", "--spec", r.spec)
	piceli("state", "export", "--spec", r.spec, "--out", exportDir, "--passphrase-file", pass)
	export := onlyFile(t, exportDir)
	piceli("state", "import", export, "--spec", r.spec, "--passphrase-file", pass)

	for _, o := range out {
		if l := leaks([]byte(o.text), canaries); len(l) > 0 {
			t.Errorf("the output of %s holds secret values: %s", o.name, strings.Join(l, "; "))
		}
	}
	sweepDir(t, r.dir, canaries, filepath.Join(r.dir, "secret"), filepath.Join(r.stateDir, "secrets"))
	sealed, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	if l := leaks(sealed, canaries); len(l) > 0 {
		t.Errorf("the export holds secret values without decryption: %s", strings.Join(l, "; "))
	}
	opened, err := state.Import(bytes.NewReader(sealed), "a long enough passphrase")
	if err != nil || !filesHold(opened, canaries["file"]) {
		t.Errorf("the decrypted export (%v) does not hold the file value: the sweep above proves nothing", err)
	}
	assertClusterHoldsValuesOnlyInSecrets(t, r, canaries)
}

// filesHold reports whether any file holds value in any form.
func filesHold(files []state.File, value string) bool {
	for _, f := range files {
		if len(leaks(f.Data, map[string]string{"v": value})) > 0 {
			return true
		}
	}
	return false
}

// assertClusterHoldsValuesOnlyInSecrets checks every ConfigMap and Lease
// of the namespace, and the metadata of every Secret, for canaries, and
// that the state Secrets, decoded, hold the file value.
func assertClusterHoldsValuesOnlyInSecrets(t *testing.T, r *secretRelease, canaries map[string]string) {
	t.Helper()
	ctx, cs := t.Context(), r.sb.Clientset
	cms, err1 := cs.CoreV1().ConfigMaps(r.ns).List(ctx, metav1.ListOptions{})
	leases, err2 := cs.CoordinationV1().Leases(r.ns).List(ctx, metav1.ListOptions{})
	secrets, err3 := cs.CoreV1().Secrets(r.ns).List(ctx, metav1.ListOptions{})
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Fatal(err)
		}
	}
	stateSecrets := 0
	for i := range secrets.Items {
		s := &secrets.Items[i]
		if s.Labels[state.StateLabel] == r.name {
			stateSecrets++
		}
		s.Data, s.StringData = nil, nil
	}
	for _, o := range []any{cms, leases, secrets} {
		data, _ := json.Marshal(o)
		if l := leaks(data, canaries); len(l) > 0 {
			t.Errorf("live %T holds secret values: %s", o, strings.Join(l, "; "))
		}
	}
	c := &state.Cluster{Client: cs, Namespace: r.ns, Release: r.name, Dir: t.TempDir(), ClusterUID: clusterUID(t, r.sb), Signers: trustedSigners(t)}
	_, _, files, _, err := c.Read(ctx)
	if err != nil || stateSecrets < 2 || !filesHold(files, canaries["file"]) {
		t.Errorf("state Secrets: %d, read %v; want a manifest and chunks holding the file value", stateSecrets, err)
	}
}
