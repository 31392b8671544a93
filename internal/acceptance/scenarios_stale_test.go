package acceptance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/cli"
	"github.com/pynenc/piceli/internal/plan"
)

// staleScenarios approve a plan the world moved away from.
func staleScenarios() []scenario {
	return []scenario{
		{
			name:     "a plan whose composition changed since is refused as stale",
			fault:    "ConfigMap a's manifest edited between plan and apply",
			expected: "exit 2 naming a: renders differently; cluster and state unchanged",
			fast:     true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.setManifest("cm-a.yaml", configMap("a", "edited"))
				e.refusedApply(p, "is stale", "ConfigMap/"+e.ns+"/a: the composition now renders it differently")
			},
		},
		{
			name:     "a plan whose fields were changed in the cluster since is refused as stale",
			fault:    "another client edits ConfigMap a's value between plan and apply",
			expected: "exit 2 naming a: a field the plan sets changed; cluster and state unchanged",
			run: func(c *sc) {
				e := c.env(envOptions{})
				e.wantExit(cli.ExitOK, "apply", "--approve", e.plan().Hash)
				e.setManifest("cm-a.yaml", configMap("a", "2"))
				p := e.plan()
				e.foreignUpdate("a", "someone else's")
				e.refusedApply(p, "is stale", "ConfigMap/"+e.ns+"/a: a field the plan sets was changed since the plan")
			},
		},
		{
			name:     "a plan applied twice is refused the second time",
			fault:    "apply --approve of a plan that was already applied",
			expected: "exit 2: planned absent, now present; nothing written again; cluster at the plan's state",
			fast:     true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				e.refusedApply(p, "is stale", "planned absent, now present")
				e.checkDesired()
			},
		},
		{
			name:     "an object deleted and created again between plan and apply is refused",
			fault:    "ConfigMap a deleted and recreated by another client after the plan of its update",
			expected: "exit 2 naming a: recreated since the plan (new uid); cluster and state unchanged",
			fast:     true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				e.wantExit(cli.ExitOK, "apply", "--approve", e.plan().Hash)
				e.setManifest("cm-a.yaml", configMap("a", "2"))
				p := e.plan()
				e.recreate("a")
				e.refusedApply(p, "is stale", "ConfigMap/"+e.ns+"/a: recreated since the plan")
			},
		},
		{
			name:     "a field owned by another manager blocks the plan, which cannot be approved",
			fault:    "another field manager owns ConfigMap a's value before the release plans a different one",
			expected: "plan exits 1 naming the manager and field, stores nothing; apply of its hash exits 2; unchanged",
			fast:     true,
			run:      foreignOwnerAtPlan,
		},
		{
			name:     "a field taken by another manager after the plan is refused as stale",
			fault:    "another field manager force-applies ConfigMap a's value between plan and apply",
			expected: "exit 2 naming a; cluster and state unchanged",
			run: func(c *sc) {
				e := c.env(envOptions{})
				e.wantExit(cli.ExitOK, "apply", "--approve", e.plan().Hash)
				e.setManifest("cm-a.yaml", configMap("a", "2"))
				p := e.plan()
				e.foreignApply("a", "theirs", true)
				e.refusedApply(p, "is stale", "ConfigMap/"+e.ns+"/a: a field the plan sets was changed since the plan")
			},
		},
		{
			name:     "a plan made through another server address of the cluster is refused",
			fault:    "plan through the proxy's URL, apply with the sandbox's own kubeconfig and context",
			expected: "exit 2: the target differs (server, context); cluster and state unchanged",
			fast:     true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.kubeconfig, e.kubeContext = c.sb.Kubeconfig, c.sb.Context
				e.writeSpec()
				e.refusedApply(p, "is stale", "the target differs: approved for server "+e.proxy.URL())
			},
		},
		{
			name:     "a tampered stored plan is refused",
			fault:    "the stored plan file edited: ConfigMap a's manifest value changed",
			expected: "exit 2 saying the plan was edited; cluster and state unchanged",
			fast:     true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.tamper(p)
				e.refusedApply(p, "plan "+plan.ShortHash(p.Hash), "edited")
			},
		},
		{
			name:     "resuming a run that finished is refused before any change",
			fault:    "release resume after the run finished",
			expected: "exit 2: nothing to resume; no write, not even the Lease",
			fast:     true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				e.wantExit(cli.ExitOK, "apply", "--approve", e.plan().Hash)
				e.snapshotBefore()
				res := e.wantExit(cli.ExitRefused, "resume")
				wantIn(e.t, "the refused resume", res.stderr, "nothing to resume", "ended finished")
				e.checkDesired()
			},
		},
	}
}

// snapshotBefore records the cluster and the state directory, and moves
// the write count's mark: from here on the scenario must change nothing.
func (e *env) snapshotBefore() {
	e.t.Helper()
	e.before = e.snapshot()
	e.markWrites()
	e.want = untouched
}

// refusedApply applies p and wants exit 2 with fragments in the error,
// and nothing changed since just before.
func (e *env) refusedApply(p *plan.Plan, fragments ...string) {
	e.t.Helper()
	e.snapshotBefore()
	res := e.wantExit(cli.ExitRefused, "apply", "--approve", p.Hash)
	wantIn(e.t, "the refused apply's error", res.stderr, fragments...)
}

// foreignUpdate changes ConfigMap name's value as another client, with an
// update (manager "someone-else").
func (e *env) foreignUpdate(name, value string) {
	e.t.Helper()
	cms := e.sb.Clientset.CoreV1().ConfigMaps(e.ns)
	cm, err := cms.Get(ctx(e.t), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	cm.Data["value"] = value
	if _, err := cms.Update(ctx(e.t), cm, metav1.UpdateOptions{FieldManager: "someone-else"}); err != nil {
		e.t.Fatal(err)
	}
}

// foreignApply server-side applies ConfigMap name's value as field
// manager "someone-else", forcing when asked.
func (e *env) foreignApply(name, value string, force bool) {
	e.t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": e.ns},
		"data":     map[string]any{"value": value},
	}}
	_, err := e.sb.Dynamic.Resource(snapshotKinds[0]).Namespace(e.ns).Apply(ctx(e.t), name, u, metav1.ApplyOptions{FieldManager: "someone-else", Force: force})
	if err != nil {
		e.t.Fatalf("apply ConfigMap %s as someone-else: %v", name, err)
	}
}

// recreate deletes ConfigMap name and creates it again with its data, as
// another client: same name, new UID.
func (e *env) recreate(name string) {
	e.t.Helper()
	cms := e.sb.Clientset.CoreV1().ConfigMaps(e.ns)
	old, err := cms.Get(ctx(e.t), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cms.Delete(ctx(e.t), name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
	fresh := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: old.Labels}, Data: old.Data}
	if _, err := cms.Create(ctx(e.t), fresh, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// tamper edits the stored plan file of p as a person with an editor
// would: ConfigMap a's value in the manifest its step approves.
func (e *env) tamper(p *plan.Plan) {
	e.t.Helper()
	path := filepath.Join(plan.Dir(e.stateDir), strings.TrimPrefix(p.Hash, "sha256:")+".json")
	var doc map[string]any
	if err := json.Unmarshal(readFile(e.t, path), &doc); err != nil {
		e.t.Fatalf("stored plan %s: %v", path, err)
	}
	a := stepOf(e.t, p, "ConfigMap", "a")
	step := doc["steps"].([]any)[a].(map[string]any)
	if err := unstructured.SetNestedField(step, "tampered", "manifest", "data", "value"); err != nil {
		e.t.Fatal(err)
	}
	edited, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// foreignOwnerAtPlan lets another manager own a's value before the plan.
func foreignOwnerAtPlan(c *sc) {
	e := c.env(envOptions{})
	e.foreignApply("a", "theirs", false)
	e.snapshotBefore()
	res := e.release("plan", "-o", "json")
	if res.code != cli.ExitFailed {
		e.t.Fatalf("plan with a field owned by someone else: %s\nwant exit 1 (blocked)", res)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(res.stdout), &p); err != nil || len(p.Blocked()) == 0 {
		e.t.Fatalf("release plan -o json of a blocked plan: %v, blocked %v\n%s", err, p.Blocked(), res.stdout)
	}
	text := e.release("plan")
	wantIn(e.t, "the blocked plan", text.stdout+text.stderr, `manager "someone-else"`, "data.value", "ConfigMap/"+e.ns+"/a")
	if p.Hash != "" {
		res := e.wantExit(cli.ExitRefused, "apply", "--approve", p.Hash)
		wantIn(e.t, "apply of the blocked plan", res.stderr, "no such plan")
	}
}
