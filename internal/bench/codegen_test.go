package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The benchmark's codegen figure comes from generating the sample CRD and
// is written as its own section with the target of issue 32.
func TestCodegenSectionReportsTheSample(t *testing.T) {
	wd, _ := os.Getwd()
	t.Chdir(filepath.Join(wd, "..", ".."))
	f, err := measureCodegen()
	if err != nil {
		t.Fatal(err)
	}
	if f.Bytes < 400<<10 || f.OutBytes == 0 || f.Min > f.Median || f.Median > f.Max {
		t.Fatalf("measureCodegen() = %+v, want a 400 KB sample, output and ordered times", f)
	}
	s := codegenSection(f)
	for _, want := range []string{"## Code generation (issue 32)", "| HTTPRoute CRD, ", "a 400 KB CRD in under 2 s: "} {
		if !strings.Contains(s, want) {
			t.Errorf("codegenSection() lacks %q:\n%s", want, s)
		}
	}
}
