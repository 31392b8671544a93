package synth

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestObjectsHoldTheMixInAStableOrder(t *testing.T) {
	tests := []struct {
		name  string
		mix   Mix
		n     int
		kinds map[string]int
	}{
		{name: "ConfigMaps only", mix: ConfigMaps, n: 25, kinds: map[string]int{"ConfigMap": 25}},
		{name: "the mix per 10 objects", mix: Mixed, n: 1000, kinds: map[string]int{"ConfigMap": 300, "Secret": 200, "ServiceAccount": 200, "Service": 200, "Deployment": 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Objects(tt.mix, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			for _, o := range objs {
				kinds[o.GetKind()]++
			}
			if d := cmp.Diff(tt.kinds, kinds); d != "" {
				t.Errorf("Objects(%s, %d) kinds (-want +got):\n%s", tt.mix, tt.n, d)
			}
			if got := Deployments(tt.mix, tt.n); got != tt.kinds["Deployment"] {
				t.Errorf("Deployments(%s, %d) = %d, want %d", tt.mix, tt.n, got, tt.kinds["Deployment"])
			}
			again, _ := Objects(tt.mix, tt.n)
			if d := cmp.Diff(objs, again); d != "" {
				t.Errorf("Objects(%s, %d) differs between calls:\n%s", tt.mix, tt.n, d)
			}
		})
	}
}

func TestObjectsRefusesAnUnknownMix(t *testing.T) {
	if _, err := Objects("pods", 1); err == nil {
		t.Error(`Objects("pods", 1): no error`)
	}
}
