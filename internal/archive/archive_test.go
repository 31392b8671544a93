package archive

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

const canary = "canary-value-4f1d2c"

func fixture() (*plan.Plan, []journal.Record) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ref := object.Ref{Kind: "Secret", Namespace: "shop", Name: "db"}
	p := &plan.Plan{Hash: "abc123", Release: plan.Release{Name: "shop"},
		Target: plan.Target{Server: "https://127.0.0.1:1", Context: "c", Namespace: "shop", ClusterUID: "uid"},
		Steps: []plan.Step{
			{Ref: ref, APIVersion: "v1", Resource: "secrets", Action: plan.Create, Desired: "hmac:1",
				Manifest: map[string]any{"stringData": map[string]any{"password": canary}}},
			{Ref: object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: "old"}, APIVersion: "v1", Resource: "configmaps", Action: plan.Delete},
		}}
	recs := []journal.Record{
		{Seq: 1, Type: journal.RunStarted, Time: at, Run: "r1", Plan: "abc123", Step: journal.NoStep},
		{Seq: 2, Type: journal.Intent, Time: at.Add(time.Second), Step: 0, Action: "create", Ref: &ref},
		{Seq: 3, Type: journal.Outcome, Time: at.Add(2 * time.Second), Step: 0, Result: journal.ResultApplied, UID: "u1"},
		{Seq: 4, Type: journal.RunFinished, Time: at.Add(3 * time.Second), Step: journal.NoStep},
	}
	return p, recs
}

func TestBuildKeepsDigestsNeverManifests(t *testing.T) {
	p, recs := fixture()
	a, err := Build("r1", "apply", p, recs, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), canary) || strings.Contains(string(data), "manifest") {
		t.Fatalf("the archive holds a manifest or a secret value:\n%s", data)
	}
	if a.Status != "finished" || a.Revision != 1 || !a.Ended.Equal(recs[3].Time) || a.Namespaces[0] != "shop" {
		t.Errorf("archive = %+v; want finished revision 1 ending at the last record, namespace shop", a)
	}
	if o := a.Objects[0]; !o.Declared || o.Digest != "hmac:1" || o.Outcome != "applied" {
		t.Errorf("objects[0] = %+v, want declared with its digest, applied", o)
	}
	if o := a.Objects[1]; o.Declared || o.Outcome != "pending" {
		t.Errorf("objects[1] (a delete) = %+v, want not declared, pending", o)
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := Write(path, a); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Run != "r1" || len(back.Objects) != 2 {
		t.Errorf("Read(Write(a)) = %+v", back)
	}
}

func TestAStoredArchiveIsCompactAndPrintsIndented(t *testing.T) {
	p, recs := fixture()
	a, err := Build("r1", "apply", p, recs, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := Write(path, a); err != nil {
		t.Fatal(err)
	}
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(a)
	if string(stored) != string(compact)+"\n" {
		t.Errorf("stored archive is not its compact JSON and a newline:\n%s", stored)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Encode(back)
	want, _ := Encode(a)
	if string(got) != string(want) || !strings.Contains(string(got), "\n  \"run\": \"r1\"") {
		t.Errorf("Encode(Read(path)) =\n%s\nwant the indented archive\n%s", got, want)
	}
}

func TestDecodeRefusesWhatIsNotAnArchive(t *testing.T) {
	p, recs := fixture()
	a, _ := Build("r1", "apply", p, recs, 1)
	good, _ := json.Marshal(a)
	for _, tc := range []struct{ name, doc, want string }{
		{"malformed", "{\n\"schema\": \n}", "line 3"},
		{"another schema", strings.Replace(string(good), Schema, "piceli.plan/v1", 1), `key "schema"`},
		{"an unknown key", strings.Replace(string(good), `"run":`, `"surprise": 1, "run":`, 1), "surprise"},
		{"no target", strings.Replace(string(good), `"clusterUID":"uid"`, `"clusterUID":""`, 1), `key "target"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode(%s) = %v, want an error saying %q", tc.name, err, tc.want)
			}
		})
	}
}
