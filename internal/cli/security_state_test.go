package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/signer"
	"github.com/pynenc/piceli/internal/state"
)

// gatedRollback is the [release] policy and a check that passes while the
// file "pass" exists beside the spec: with on_failure = "rollback", a run
// whose check fails is rolled back to the latest revision by itself.
const gatedRollback = "on_failure = \"rollback\"\n\n[[checks]]\nname = \"gate\"\ncommand = { run = [\"test\", \"-e\", \"pass\"] }\n"

// gate makes r's check pass (open) or fail.
func (r *testRelease) gate(t *testing.T, open bool) {
	t.Helper()
	path := filepath.Join(filepath.Dir(r.spec), "pass")
	if open {
		writeFiles(t, filepath.Dir(r.spec), map[string]string{"pass": ""})
		return
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// Issue 28, hole 1: an identity that may only get, create and update
// Secrets in the release's namespace rewrites the shared state snapshot:
// it adds a ClusterRoleBinding of cluster-admin to itself to revision 1,
// re-seals that revision and its plan with the digest key the snapshot
// carries, re-packs, re-chunks and re-digests it, and makes it current,
// first under the writer's old signature, then signed with a key of its
// own. The operator's next apply, whose check fails under on_failure =
// "rollback", refuses the forged state (exit 2) before writing anything:
// no ClusterRoleBinding exists and the intruder still may not do
// everything. Without the signature check the automatic rollback applies
// the binding (checked by making Cluster.verify accept any snapshot).
func TestSecurityForgedSharedStateIsRefused(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, sharedState+gatedRollback, map[string]string{"cfg.yaml": configMapYAML("cfg", "mode", "one")})
	crb := "piceli-test-intruder-" + r.ns
	intruder := newAttacker(t, sb, r.ns, crb)
	if !intruder.can(t, "update", "", "secrets", r.ns) || intruder.can(t, "*", "*", "*", "") {
		t.Fatalf("the intruder should update secrets in %s and nothing more", r.ns)
	}
	r.gate(t, true)
	r.apply(t, r.plan(t)) // revision 1
	r.setManifest(t, "cfg.yaml", configMapYAML("cfg", "mode", "two"))
	r.gate(t, false)
	next := r.plan(t) // shared: the snapshot now holds this plan
	genuine, _ := intruder.manifest(t, r.name)

	for _, tt := range []struct {
		name string
		key  ed25519.PrivateKey // the intruder's signing key; nil keeps the writer's signature
		want string
	}{
		{name: "under the writer's old signature", want: "does not verify"},
		{name: "signed with the intruder's own key", key: newIntruderKey(t), want: "signature by a key not in state_signers"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			intruder.forgeState(t, r.name, crb, genuine, tt.key)
			res := run(t, "release", "apply", "--spec", r.spec, "--approve", next.Hash)
			if res.code != ExitRefused || !strings.Contains(res.stderr, tt.want) || !strings.Contains(res.stderr, "state snapshot") {
				t.Errorf("apply after the forgery: exit %d, want 2 saying %q\n%s", res.code, tt.want, res.stderr)
			}
			if _, err := sb.Clientset.RbacV1().ClusterRoleBindings().Get(t.Context(), crb, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("ClusterRoleBinding %s: %v, want it never created", crb, err)
			}
			if intruder.can(t, "*", "*", "*", "") {
				t.Errorf("the intruder may do everything everywhere")
			}
			cm, err := sb.Clientset.CoreV1().ConfigMaps(r.ns).Get(t.Context(), "cfg", metav1.GetOptions{})
			if err != nil || cm.Data["mode"] != "one" {
				t.Errorf("ConfigMap cfg = %v (%v), want revision 1's mode one: nothing written", cm.Data, err)
			}
		})
	}
}

// newIntruderKey is a signing key no spec lists.
func newIntruderKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// forgeState rewrites, as the intruder, the shared state of release in its
// namespace, starting from the genuine manifest: revision 1 gains a
// ClusterRoleBinding crb of cluster-admin to the intruder, sealed as
// Piceli seals (the digest key is in the snapshot), and the forged
// snapshot becomes current, one generation on, signed with key or, when
// key is nil, carrying the genuine current snapshot's signature.
func (a *attacker) forgeState(t *testing.T, release, crb string, genuine *state.Manifest, key ed25519.PrivateKey) {
	t.Helper()
	_, sec := a.manifest(t, release)
	m := *genuine
	dir := t.TempDir()
	for _, f := range a.snapshotFiles(t, m.Current) {
		writeFiles(t, dir, map[string]string{f.Path: string(f.Data)})
	}
	clusterUID := forgeRevision(t, dir, a.binding(crb))
	files, err := state.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := state.Pack(files)
	if err != nil {
		t.Fatal(err)
	}
	snap := &state.Snapshot{Generation: m.Current.Generation + 1, Digest: state.Digest(data), Size: len(data), Files: len(files),
		Writer: m.Current.Writer, Transitions: m.Current.Transitions, Signer: m.Current.Signer, Signature: m.Current.Signature}
	a.writeChunks(t, release, snap, data)
	if key != nil {
		stmt := state.Statement{Schema: state.StatementSchema, Release: release, Namespace: a.ns, Cluster: clusterUID,
			Generation: snap.Generation, Digest: snap.Digest, Size: snap.Size, Files: snap.Files}
		msg, _ := json.Marshal(stmt)
		snap.Signer = signer.Signer{Key: key.Public().(ed25519.PublicKey)}.ID()
		snap.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(key, msg))
	}
	m.Previous, m.Current = m.Current, snap
	doc, _ := json.Marshal(m)
	sec.Data["manifest.json"] = doc
	if _, err := a.cs.CoreV1().Secrets(a.ns).Update(t.Context(), sec, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update the state manifest as the intruder: %v", err)
	}
}

// manifest reads the release's state manifest as the intruder.
func (a *attacker) manifest(t *testing.T, release string) (*state.Manifest, *corev1.Secret) {
	t.Helper()
	sec, err := a.cs.CoreV1().Secrets(a.ns).Get(t.Context(), "piceli-state-"+release, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("read the state manifest as the intruder: %v", err)
	}
	var m state.Manifest
	if err := json.Unmarshal(sec.Data["manifest.json"], &m); err != nil || m.Current == nil {
		t.Fatalf("state manifest: %v", err)
	}
	return &m, sec
}

// snapshotFiles reads and unpacks the chunks of snap as the intruder.
func (a *attacker) snapshotFiles(t *testing.T, snap *state.Snapshot) []state.File {
	t.Helper()
	var data []byte
	for _, ch := range snap.Chunks {
		sec, err := a.cs.CoreV1().Secrets(a.ns).Get(t.Context(), ch.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("read chunk %s as the intruder: %v", ch.Name, err)
		}
		data = append(data, sec.Data["chunk"]...)
	}
	files, err := state.Unpack(data)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// writeChunks stores data as snap's chunks, as the intruder, with the
// labels Piceli gives them, and lists them in snap.
func (a *attacker) writeChunks(t *testing.T, release string, snap *state.Snapshot, data []byte) {
	t.Helper()
	for i := 0; i == 0 || i*state.ChunkSize < len(data); i++ {
		part := data[i*state.ChunkSize : min((i+1)*state.ChunkSize, len(data))]
		name := fmt.Sprintf("piceli-state-%s-%d-%d", release, snap.Generation, i)
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			state.StateLabel: release, state.PartLabel: "chunk", "piceli.dev/state-generation": fmt.Sprint(snap.Generation),
		}}, Data: map[string][]byte{"chunk": part}}
		a.putSecret(t, sec)
		snap.Chunks = append(snap.Chunks, state.Chunk{Name: name, Digest: state.Digest(part), Size: len(part)})
	}
}

// putSecret creates sec, or replaces the Secret of its name, as the
// intruder.
func (a *attacker) putSecret(t *testing.T, sec *corev1.Secret) {
	t.Helper()
	api := a.cs.CoreV1().Secrets(a.ns)
	_, err := api.Create(t.Context(), sec, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var cur *corev1.Secret
		if cur, err = api.Get(t.Context(), sec.Name, metav1.GetOptions{}); err == nil {
			sec.ResourceVersion = cur.ResourceVersion
			_, err = api.Update(t.Context(), sec, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		t.Fatalf("write Secret %s as the intruder: %v", sec.Name, err)
	}
}

// binding is a ClusterRoleBinding named crb of cluster-admin to the
// intruder's ServiceAccount.
func (a *attacker) binding(crb string) map[string]any {
	return map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": crb},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": a.name, "namespace": a.ns}},
	}
}

// forgeRevision adds obj to revision 1 of the state directory dir and to
// the plan it records, both sealed again with the release's digest key
// (which dir holds), so that the revision passes every local check: its
// seal, its plan's seal, its objects against that plan. It returns the
// cluster identity the plan records.
func forgeRevision(t *testing.T, dir string, obj map[string]any) string {
	t.Helper()
	rev, err := history.Load(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := plan.Load(dir, rev.Plan)
	if err != nil {
		t.Fatal(err)
	}
	key, err := plan.ReadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	dig := plan.Digester{Key: key}
	ref := bindingRef(obj["metadata"].(map[string]any)["name"].(string))
	step := plan.Step{Ref: ref, APIVersion: "rbac.authorization.k8s.io/v1", Resource: "clusterrolebindings", Stage: graph.StageOf(ref.Group, ref.Kind),
		Action: plan.Create, Observed: plan.Observed{Absent: true}, Manifest: obj, Desired: dig.Of(obj), Origin: "revision 1"}
	p.Steps = append(p.Steps, step)
	p.Waves = append(p.Waves, graph.Wave{Stage: step.Stage, Nodes: []int{len(p.Steps) - 1}})
	p.Hash, p.Seal = "", ""
	hash, err := plan.Save(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	rev.Plan = hash
	rev.Objects = append(rev.Objects, history.Object{Ref: ref, APIVersion: step.APIVersion, Resource: step.Resource, Manifest: obj})
	resealRevision(t, dir, key, *rev)
	return p.Target.ClusterUID
}

// resealRevision replaces revision 1 of dir with rev sealed under key, as
// history.Add seals, and drops the history index (rebuilt from the
// revision files).
func resealRevision(t *testing.T, dir string, key []byte, rev history.Revision) {
	t.Helper()
	if rev.Number != 1 {
		t.Fatalf("resealRevision(revision %d): only revision 1", rev.Number)
	}
	other := t.TempDir()
	rev.Seal = ""
	if _, err := history.Add(other, key, rev); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(other, "history", "000001.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "history", "000001.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "history", "index.json"))
}
