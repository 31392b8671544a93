package history

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/object"
)

func TestEncodeIsJSONMarshal(t *testing.T) {
	tricky := `x"objects":null, <&> \ ` + "\u2028\xff"
	manifest := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "labels": map[string]any{"k": tricky}},
		"data": map[string]any{"objects": nil, tricky: tricky}, "replicas": int64(3), "list": []any{nil, true, int64(-1)}}
	obj := Object{Ref: object.Ref{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "a"}, APIVersion: "apps/v1", Resource: "deployments", Manifest: manifest}
	at := time.Date(2026, 12, 3, 18, 0, 0, 123, time.UTC)
	for name, r := range map[string]Revision{
		"no objects":    {Schema: Schema, Number: 1, Plan: "sha256:" + tricky, Run: tricky, Source: tricky, Outcome: tricky},
		"empty objects": {Schema: Schema, Number: 2, Objects: []Object{}, Started: at, Finished: at, Unchanged: true},
		"objects, secrets and checks": {Schema: Schema, Number: 3, Run: "r", Source: "rollback to 1", Started: at, Finished: at.Add(time.Second),
			Objects: []Object{obj, {Ref: object.Ref{Kind: "Namespace", Name: "ns"}, APIVersion: "v1", Resource: "namespaces"}},
			Secrets: map[string]int{"objects": 2, tricky: 1}, Checks: &Checks{Skipped: true, Reason: tricky}},
		"a manifest encoding/json takes": {Schema: Schema, Number: 4, Objects: []Object{{Ref: object.Ref{Kind: "X", Name: "f"}, Manifest: map[string]any{"ratio": 0.5, "big": 1e21}}}},
	} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encode(r)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: encode = %s, %v\nwant json.Marshal's %s", name, got, err, want)
		}
	}
}
