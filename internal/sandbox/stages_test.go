package sandbox

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// kwokDefaultStages are the stages kwokctl v0.8.0 writes for a binary
// runtime cluster, in its order.
var kwokDefaultStages = []string{"node-initialize", "node-heartbeat-with-lease", "pod-ready", "pod-complete", "pod-delete"}

// simulatedExclusion is the expression added to pod-ready.
var simulatedExclusion = map[string]any{"jq": map[string]any{
	"key": `.metadata.annotations["piceli.dev/kwok-simulate"]`, "operator": "DoesNotExist",
}}

// The rendered config is the KwokctlConfiguration followed by kwok's five
// default stages, as kwok-stages prints them, then the sandbox's own; only
// pod-ready is changed, by one more selector expression at the end.
func TestRenderConfigHoldsDefaultAndOwnStages(t *testing.T) {
	bins := cachedBinaries(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	defaults, err := defaultStages(ctx, bins)
	if err != nil {
		t.Fatal(err)
	}
	stages, err := sandboxStages(defaults)
	if err != nil {
		t.Fatal(err)
	}
	out, err := renderConfig(bins, stages, "")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := decodeStages(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("decode rendered config: %v", err)
	}
	if kind, _ := docs[0]["kind"].(string); kind != "KwokctlConfiguration" {
		t.Fatalf("first document is a %q, want the KwokctlConfiguration", kind)
	}
	want := append(append([]string{}, kwokDefaultStages...), "pod-crash-loop", "pod-image-pull-backoff")
	if got := stageNames(docs[1:]); !reflect.DeepEqual(got, want) {
		t.Fatalf("stages in the rendered config = %v, want %v", got, want)
	}
	original, _ := decodeStages(bytes.NewReader(defaults))
	for i, s := range docs[1:6] {
		assertOnlyPodReadyChanged(t, original[i], s)
	}
}

// assertOnlyPodReadyChanged compares a rendered default stage with what
// kwok-stages printed: equal, but for pod-ready's added exclusion.
func assertOnlyPodReadyChanged(t *testing.T, printed, rendered stage) {
	t.Helper()
	name := stageName(printed)
	if name != podReadyStage {
		if !reflect.DeepEqual(printed, rendered) {
			t.Errorf("stage %s changed in the rendered config", name)
		}
		return
	}
	before := matchExpressions(printed)
	after := matchExpressions(rendered)
	if len(after) != len(before)+1 || !reflect.DeepEqual(after[:len(before)], before) {
		t.Fatalf("pod-ready matchExpressions = %v, want %v plus one", after, before)
	}
	if !reflect.DeepEqual(after[len(before)], simulatedExclusion) {
		t.Errorf("pod-ready's added expression = %v, want %v", after[len(before)], simulatedExclusion)
	}
	if len(before) == 0 || !hasJQKey(before[0]) {
		t.Errorf("pod-ready's own expressions %v are not in kwok's jq form", before)
	}
}

// Without a pod-ready stage there is nothing to exclude simulated pods
// from: the sandbox refuses to start rather than let kwok make them Ready.
func TestSandboxStagesNeedPodReady(t *testing.T) {
	defaults := []byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-delete\n")
	_, err := sandboxStages(defaults)
	if err == nil || !strings.Contains(err.Error(), "pod-ready") {
		t.Fatalf("sandboxStages(no pod-ready) = %v, want an error naming pod-ready", err)
	}
}

// Every embedded stage selects pods by the simulate annotation, with a
// value of its own.
func TestOwnStagesSelectBySimulateAnnotation(t *testing.T) {
	stages, err := readOwnStages()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, s := range stages {
		sel, _ := nestedMap(s, "spec", "selector", "matchAnnotations")
		v, _ := sel[SimulateAnnotation].(string)
		values[v] = stageName(s)
	}
	for _, v := range []string{SimulateImagePullBackOff, SimulateCrashLoop} {
		if values[v] == "" {
			t.Errorf("no embedded stage selects %s=%s (have %v)", SimulateAnnotation, v, values)
		}
	}
}

func stageNames(stages []stage) []string {
	var names []string
	for _, s := range stages {
		names = append(names, stageName(s))
	}
	return names
}

func matchExpressions(s stage) []any {
	sel, _ := nestedMap(s, "spec", "selector")
	exprs, _ := sel["matchExpressions"].([]any)
	return exprs
}

func hasJQKey(expr any) bool {
	m, _ := expr.(map[string]any)
	jq, _ := m["jq"].(map[string]any)
	_, ok := jq["key"].(string)
	return ok
}

// cachedBinaries returns the binary cache when it holds kwok-stages; the
// test is skipped otherwise, or fails under CI=true, where the cache is
// always built.
func cachedBinaries(t *testing.T) Binaries {
	t.Helper()
	dir, err := DefaultBinDir()
	if err != nil {
		t.Fatal(err)
	}
	bins := Binaries{Dir: dir}
	if isExecutable(bins.Path(BinKwokStages)) {
		return bins
	}
	reason := BinKwokStages + " missing from " + dir + " (build it with `piceli sandbox build`)"
	if os.Getenv("CI") == "true" {
		t.Fatal(reason)
	}
	t.Skip(reason)
	return Binaries{}
}
