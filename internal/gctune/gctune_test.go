package gctune

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The tuning applies unless the environment says otherwise; each case runs
// in a process of its own, since the settings are the process's.
func TestForCommandYieldsToTheEnvironment(t *testing.T) {
	if os.Getenv("GCTUNE_CHILD") == "1" {
		percent, limit := ForCommand()
		os.Stdout.WriteString(itoa(int64(percent)) + " " + itoa(limit) + "\n")
		return
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, itoa(Percent) + " " + itoa(Limit)},
		{[]string{"GOGC=50"}, "50 " + itoa(Limit)},
		{[]string{"GOMEMLIMIT=1GiB"}, itoa(Percent) + " " + itoa(1<<30)},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestForCommandYieldsToTheEnvironment$")
		cmd.Env = append(withoutGC(os.Environ()), append(c.env, "GCTUNE_CHILD=1")...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", c.env, err)
		}
		if got, _, _ := strings.Cut(string(out), "\n"); got != c.want {
			t.Errorf("ForCommand() under %v = %q; want %q", c.env, got, c.want)
		}
	}
}

func withoutGC(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "GOGC=") && !strings.HasPrefix(e, "GOMEMLIMIT=") {
			out = append(out, e)
		}
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
