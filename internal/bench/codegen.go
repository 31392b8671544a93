package bench

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/pynenc/piceli/internal/crdgen"
)

// codegenSample is the largest CRD internal/crdgen is tested on: Gateway
// API's HTTPRoute, about 420 KB of YAML with two served versions.
const codegenSample = "internal/crdgen/testdata/public/gateway.networking.k8s.io_httproutes.yaml"

// codegenRuns is how many times the generator runs on the sample.
const codegenRuns = 5

// codegenTarget is issue 32's bound for a 400 KB CRD.
const codegenTarget = 2 * time.Second

// codegenFigure is the generator's time on the sample, in this process:
// decode and Generate, no file written.
type codegenFigure struct {
	Bytes, OutBytes int
	Median, Min     time.Duration
	Max             time.Duration
}

// measureCodegen runs the generator codegenRuns times on the sample.
func measureCodegen() (codegenFigure, error) {
	data, err := os.ReadFile(codegenSample)
	if err != nil {
		return codegenFigure{}, fmt.Errorf("read the codegen sample (run make bench from the checkout): %w", err)
	}
	f := codegenFigure{Bytes: len(data)}
	var runs []time.Duration
	for range codegenRuns {
		start := time.Now()
		docs, _, err := crdgen.Decode(codegenSample, data)
		if err != nil {
			return f, err
		}
		out, err := crdgen.Generate(crdgen.Input{Documents: docs})
		if err != nil {
			return f, err
		}
		runs = append(runs, time.Since(start))
		f.OutBytes = 0
		for _, b := range out.Files {
			f.OutBytes += len(b)
		}
	}
	slices.Sort(runs)
	f.Median, f.Min, f.Max = median(runs), runs[0], runs[len(runs)-1]
	return f, nil
}

// codegenSection is the document's section on the generator.
func codegenSection(f codegenFigure) string {
	met := "met"
	if f.Median >= codegenTarget {
		met = "NOT MET"
	}
	return fmt.Sprintf(`
## Code generation (issue 32)

`+"`piceli codegen crd`"+`'s generator (internal/crdgen: decode, then Generate; no file written), %d runs in
the benchmark's process on %s (%d KB of YAML, two served versions), which gives %d KB of Go.

| input | median (fastest–slowest) | target |
| --- | --- | --- |
| HTTPRoute CRD, %d KB | %.2f s (%.2f–%.2f) | a 400 KB CRD in under 2 s: %s |
`, codegenRuns, codegenSample, f.Bytes>>10, f.OutBytes>>10, f.Bytes>>10, f.Median.Seconds(), f.Min.Seconds(), f.Max.Seconds(), met)
}
