package plan_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark/text"

	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
)

const reviewHash = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// review is a plan a pull request could bring: a Namespace and forty
// ConfigMaps to create, a ConfigMap whose field changes, a Deployment
// with many changed fields and a warning, a Secret whose keys change, an
// adopted Service not waited for, unchanged objects, two deletes and a
// kept PVC.
func review() *plan.Plan {
	p := &plan.Plan{Schema: plan.Schema, Hash: reviewHash, Release: plan.Release{Name: "shop"},
		Target: plan.Target{Namespace: "shop", Server: "https://127.0.0.1:6443", Context: "staging"}}
	add := func(stage plan.Stage, kind, group, name string, a plan.Action, ch ...plan.Change) *plan.Step {
		p.Steps = append(p.Steps, plan.Step{Ref: object.Ref{Group: group, Kind: kind, Namespace: "shop", Name: name}, Stage: stage, Action: a, Changes: ch})
		return &p.Steps[len(p.Steps)-1]
	}
	wave := func(stage plan.Stage, from int) {
		w := plan.Wave{Stage: stage}
		for i := from; i < len(p.Steps); i++ {
			w.Nodes = append(w.Nodes, i)
		}
		p.Waves = append(p.Waves, w)
	}
	ns := add(plan.StageNamespaces, "Namespace", "", "shop", plan.Create)
	ns.Ref.Namespace = ""
	wave(plan.StageNamespaces, 0)
	from := len(p.Steps)
	for i := range 40 {
		add(plan.StageConfig, "ConfigMap", "", fmt.Sprintf("feature-%02d", i), plan.Create)
	}
	add(plan.StageConfig, "ConfigMap", "", "web", plan.Update, plan.Change{Path: "data.greeting", Kind: plan.Changed, From: "hello", To: "hi"})
	add(plan.StageConfig, "Secret", "", "db", plan.Update,
		plan.Change{Path: "data.password", Kind: plan.Changed, Hidden: true},
		plan.Change{Path: "data.token", Kind: plan.Added, Hidden: true})
	add(plan.StageConfig, "ConfigMap", "", "unchanged", plan.NoOp)
	wave(plan.StageConfig, from)
	from = len(p.Steps)
	svc := add(plan.StageServices, "Service", "", "web", plan.Adopt, plan.Change{Path: "metadata.labels.piceli.dev/release", Kind: plan.Added, To: "shop"})
	svc.NoWait = plan.NoWaitAnnotated
	wave(plan.StageServices, from)
	from = len(p.Steps)
	web := add(plan.StageWorkloads, "Deployment", "apps", "web", plan.Update,
		plan.Change{Path: "spec.replicas", Kind: plan.Changed, From: 2, To: 3},
		plan.Change{Path: "spec.template.spec.containers[name=web].image", Kind: plan.Changed, From: "web:1", To: "web:2"},
		plan.Change{Path: "spec.template.spec.containers[name=web].env[name=MODE].value", Kind: plan.Added, To: "fast"},
		plan.Change{Path: "spec.template.spec.containers[name=web].args", Kind: plan.Changed, From: []any{"--a"}, To: []any{"--a", "--b"}},
		plan.Change{Path: "spec.template.spec.containers[name=web].resources.limits.cpu", Kind: plan.Removed, From: "500m"},
		plan.Change{Path: "spec.template.metadata.annotations.note", Kind: plan.Changed, From: "a long note " + strings.Repeat("x", 120), To: "short"})
	web.Warnings = []string{"image web:2 is a tag, not a digest"}
	add(plan.StageWorkloads, "Deployment", "apps", "api", plan.NoOp)
	wave(plan.StageWorkloads, from)
	from = len(p.Steps)
	add(plan.StagePrune, "ConfigMap", "", "old", plan.Delete)
	add(plan.StagePrune, "Deployment", "apps", "legacy", plan.Delete)
	wave(plan.StagePrune, from)
	p.Kept = []plan.Kept{{Ref: object.Ref{Kind: "PersistentVolumeClaim", Namespace: "shop", Name: "data"}, Reason: plan.KeepProtected}}
	return p
}

const approveLine = "piceli release apply --spec release.toml --approve 0123456789ab"

// A plan as a review comment: counts first, then each wave's changed
// objects with their fields, unchanged objects counted, the hash and the
// command that approves it; a diff says it stored nothing; a small limit
// keeps whole table rows and counts the rest.
func TestWriteMarkdownGolden(t *testing.T) {
	diff := review()
	diff.Hash = ""
	blocked := review()
	blocked.Hash = ""
	blocked.Steps[41].Blocked = "manager \"kubectl\" owns data.greeting with another value"
	for _, tc := range []struct {
		name, golden string
		p            *plan.Plan
		opts         plan.MarkdownOptions
	}{
		{"a stored plan ends with its hash and the command that approves it", "review.md", review(), plan.MarkdownOptions{Next: approveLine}},
		{"a diff says it stored nothing and how to store a plan", "review-diff.md", diff, plan.MarkdownOptions{Next: "piceli release plan --spec release.toml"}},
		{"a blocked plan lists why and offers nothing to approve", "review-blocked.md", blocked, plan.MarkdownOptions{Next: approveLine}},
		{"a small limit writes whole rows and counts the objects left out", "review-bounded.md", review(), plan.MarkdownOptions{Next: approveLine, Limit: 3000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.p.WriteMarkdown(&b, tc.opts); err != nil {
				t.Fatal(err)
			}
			matchGolden(t, tc.golden, b.Bytes())
		})
	}
}

// A plan of 5,000 objects, each with long changed values, stays under
// GitHub's 65,536 characters, in one wave or in 5,000: whole rows only,
// every table well formed, the object rows written and the "… N more
// objects" count adding up to 5,000, and the approval written last.
func TestWriteMarkdownStaysUnderTheCommentLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		perWave int
	}{
		{"5,000 objects in one wave", 5000},
		{"5,000 waves of one object", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := bigPlan(5000, tc.perWave).WriteMarkdown(&b, plan.MarkdownOptions{Next: approveLine}); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d bytes", b.Len())
			if b.Len() > plan.MarkdownLimit {
				t.Errorf("the document is %d bytes, want at most %d", b.Len(), plan.MarkdownLimit)
			}
			shown := 0
			for _, table := range tablesOf(gfm().Parser().Parse(text.NewReader(b.Bytes()))) {
				rows := rowsOf(table)
				for i, r := range rows {
					if len(r) != len(rows[0]) {
						t.Fatalf("row %d of a table has %d cells, the first %d", i, len(r), len(rows[0]))
					}
				}
				if reads(t, table.FirstChild().FirstChild(), b.Bytes()) == "action" {
					shown += len(rows)
				}
			}
			m := regexp.MustCompile(`\*\*… (?:\d+ more waves and )?(\d+) more objects not shown\*\*`).FindSubmatch(b.Bytes())
			if m == nil || shown == 0 || shown+atoi(t, string(m[1])) != 5000 {
				t.Errorf("%d object rows written and the omitted line %q, want some, and them to add up to 5000", shown, m)
			}
			t.Logf("%d object rows, then %s", shown, m[0])
			if !strings.HasSuffix(b.String(), "```sh\n"+approveLine+"\n```\n") {
				t.Errorf("the document does not end with the approve command:\n…%s", b.String()[b.Len()-300:])
			}
		})
	}
}

// bigPlan is n ConfigMap updates with long values, perWave to a wave.
func bigPlan(n, perWave int) *plan.Plan {
	p := &plan.Plan{Schema: plan.Schema, Hash: reviewHash, Release: plan.Release{Name: "big"}, Target: plan.Target{Namespace: "big"}}
	long := strings.Repeat("v", 300)
	for i := range n {
		ch := []plan.Change{{Path: "data.a", Kind: plan.Changed, From: long, To: long + "w"}, {Path: "data.b", Kind: plan.Added, To: long}}
		p.Steps = append(p.Steps, plan.Step{Ref: object.Ref{Kind: "ConfigMap", Namespace: "big", Name: fmt.Sprintf("config-%04d", i)}, Stage: plan.StageConfig, Action: plan.Update, Changes: ch})
		if i%perWave == 0 {
			p.Waves = append(p.Waves, plan.Wave{Stage: plan.StageConfig})
		}
		w := &p.Waves[len(p.Waves)-1]
		w.Nodes = append(w.Nodes, i)
	}
	return p
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A Secret's changed fields show by path only: even a change that holds
// values and is not marked hidden (a plan made by other code) prints
// none of them.
func TestWriteMarkdownNeverPrintsASecretValue(t *testing.T) {
	p := hostilePlan("x")
	p.Steps[0].Ref = object.Ref{Kind: "Secret", Namespace: "shop", Name: "db"}
	p.Steps[0].Changes = []plan.Change{
		{Path: "data.password", Kind: plan.Changed, From: "b2xkLXZhbHVl", To: "bmV3LXZhbHVl"},
		{Path: "stringData.token", Kind: plan.Added, To: "plain-token"},
	}
	var b bytes.Buffer
	if err := p.WriteMarkdown(&b, plan.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"b2xkLXZhbHVl", "bmV3LXZhbHVl", "plain-token"} {
		if strings.Contains(b.String(), v) {
			t.Errorf("the comment holds the Secret value %q:\n%s", v, b.String())
		}
	}
	for _, key := range []string{"`data.password` changed (value hidden)", "`stringData.token` added (value hidden)"} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("the comment does not name the key: no %q in\n%s", key, b.String())
		}
	}
}

func TestWriteMarkdownNamesTheKubernetesVersionChartsSaw(t *testing.T) {
	p := review()
	p.Capabilities = &plan.Capabilities{KubeVersion: "v1.35.2"}
	var b bytes.Buffer
	if err := p.WriteMarkdown(&b, plan.MarkdownOptions{Next: approveLine}); err != nil {
		t.Fatal(err)
	}
	if want := "Charts rendered against Kubernetes `v1.35.2`.\n"; !strings.Contains(b.String(), want) {
		t.Errorf("the review comment lacks %q:\n%s", want, b.String()[:400])
	}
}
