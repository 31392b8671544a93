//go:build piceli_failpoints

package apply

import (
	"testing"
	"time"
)

// With the piceli_failpoints tag, FailpointEnv arms the failpoint it names.
func TestFailpointEnvArmsWithTag(t *testing.T) {
	if !FailpointsBuilt {
		t.Errorf("FailpointsBuilt = false in a build with -tags piceli_failpoints")
	}
	tests := map[string]struct {
		env   string
		name  string
		at    int
		pause time.Duration
	}{
		"a name alone arms its first hit":      {env: FailAfterWrite, name: FailAfterWrite, at: 1},
		"a count arms that hit":                {env: FailAfterWrite + ":3", name: FailAfterWrite, at: 3},
		"a duration pauses instead of killing": {env: FailAfterIntent + ":2:1s", name: FailAfterIntent, at: 2, pause: time.Second},
	}
	for sentence, tt := range tests {
		t.Run(sentence, func(t *testing.T) {
			t.Setenv(FailpointEnv, tt.env)
			f := armedFailpoint()
			if f == nil || f.name != tt.name || f.at != tt.at || f.pause != tt.pause {
				t.Errorf("armedFailpoint() with %s=%s = %+v, want name %s, at %d, pause %s", FailpointEnv, tt.env, f, tt.name, tt.at, tt.pause)
			}
		})
	}
}
