package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// SimulateAnnotation, set on a pod (or a pod template), makes kwok report
// a failure instead of a running pod: see the Simulate* values.
const SimulateAnnotation = "piceli.dev/kwok-simulate"

// Values of SimulateAnnotation.
const (
	// SimulateImagePullBackOff keeps the pod Pending with its containers
	// waiting in ImagePullBackOff.
	SimulateImagePullBackOff = "image-pull-backoff"
	// SimulateCrashLoop runs the pod with its containers waiting in
	// CrashLoopBackOff after exiting with code 1.
	SimulateCrashLoop = "crash-loop"
)

// podReadyStage is kwok's default stage that makes pending pods run.
const podReadyStage = "pod-ready"

// ownStages are the sandbox's Stage documents, appended after kwok's.
//
//go:embed stages/*.yaml
var ownStages embed.FS

// stage is one kwok Stage document, decoded loosely so that fields this
// package does not know pass through unchanged.
type stage = map[string]any

// defaultStages runs kwok-stages, which prints the Stage documents kwokctl
// writes when its configuration holds none.
func defaultStages(ctx context.Context, bins Binaries) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bins.Path(BinKwokStages))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("list kwok's default stages with %s: %w\n%s", cmd.Path, err, lastLines(stderr.String(), 15))
	}
	return stdout.Bytes(), nil
}

// sandboxStages returns kwok's default stages, read from defaults, with
// pod-ready told to leave pods carrying SimulateAnnotation alone, followed
// by the sandbox's own stages.
func sandboxStages(defaults []byte) ([]stage, error) {
	stages, err := decodeStages(bytes.NewReader(defaults))
	if err != nil {
		return nil, fmt.Errorf("read kwok's default stages: %w", err)
	}
	if err := excludeSimulated(stages); err != nil {
		return nil, err
	}
	own, err := readOwnStages()
	if err != nil {
		return nil, err
	}
	return append(stages, own...), nil
}

// decodeStages splits a multi-document YAML stream into its non-empty
// documents.
func decodeStages(r io.Reader) ([]stage, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var stages []stage
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return stages, nil
		}
		if err != nil {
			return nil, err
		}
		var s stage
		if err := yaml.Unmarshal(doc, &s); err != nil {
			return nil, err
		}
		if len(s) > 0 {
			stages = append(stages, s)
		}
	}
}

// excludeSimulated adds to pod-ready's selector an expression matching only
// pods without SimulateAnnotation, so the sandbox's stages decide their
// status.
func excludeSimulated(stages []stage) error {
	for _, s := range stages {
		if stageName(s) != podReadyStage {
			continue
		}
		selector, ok := nestedMap(s, "spec", "selector")
		if !ok {
			return fmt.Errorf("exclude simulated pods from kwok's %s stage: it has no spec.selector", podReadyStage)
		}
		exprs, _ := selector["matchExpressions"].([]any)
		selector["matchExpressions"] = append(exprs, map[string]any{"jq": map[string]any{
			"key":      `.metadata.annotations["` + SimulateAnnotation + `"]`,
			"operator": "DoesNotExist",
		}})
		return nil
	}
	return fmt.Errorf("exclude simulated pods from kwok's %s stage: kwok-stages printed no such stage", podReadyStage)
}

// readOwnStages decodes the embedded stages, in file name order.
func readOwnStages() ([]stage, error) {
	names, err := fs.Glob(ownStages, "stages/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("list the sandbox's kwok stages: %w", err)
	}
	var stages []stage
	for _, name := range names {
		raw, err := ownStages.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read kwok stage %s: %w", path.Base(name), err)
		}
		s, err := decodeStages(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("read kwok stage %s: %w", path.Base(name), err)
		}
		stages = append(stages, s...)
	}
	return stages, nil
}

// stageName is metadata.name of s, or "" when it has none.
func stageName(s stage) string {
	meta, _ := nestedMap(s, "metadata")
	name, _ := meta["name"].(string)
	return name
}

// nestedMap follows keys through nested maps.
func nestedMap(m map[string]any, keys ...string) (map[string]any, bool) {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}
