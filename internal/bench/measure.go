package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// sample is one measured process: its wall time, CPU time, largest
// resident set (a worker's own report, peakRSS) and the requests the API
// server served it (clientRequests; -1 without a cluster).
type sample struct {
	Wall     time.Duration
	CPU      time.Duration // user and system time of the process and those it ran
	RSS      int64         // bytes
	Requests float64
	Result   workerResult // Piceli's report; zero for kubectl
	Exit     int
	// ByKind splits Requests by verb, resource and answer (breakdown).
	ByKind map[string]float64
}

// command is one process to measure.
type command struct {
	path string
	args []string
	env  []string
	// exitOK lists exit codes that are not failures besides 0 (kubectl
	// diff exits 1 when it finds differences).
	exitOK []int
	report bool // the process is a worker that prints a workerResult
}

// measure runs cmd, timing it from start to exit, and counts the API
// requests served meanwhile when c is set.
func measure(ctx context.Context, c *cluster, cmd command) (sample, error) {
	s := sample{Requests: -1}
	var before requestCounts
	if c != nil {
		var err error
		if before, err = c.requests(ctx); err != nil {
			return s, err
		}
	}
	x := exec.CommandContext(ctx, cmd.path, cmd.args...)
	x.Env = append(x.Environ(), cmd.env...)
	var stdout, stderr bytes.Buffer
	x.Stdout, x.Stderr = &stdout, &stderr
	start := time.Now()
	err := x.Run()
	s.Wall = time.Since(start)
	if x.ProcessState != nil {
		s.Exit = x.ProcessState.ExitCode()
		if ru, ok := x.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	if err != nil && !exitAllowed(s.Exit, cmd.exitOK) {
		return s, fmt.Errorf("%s %s: %w\n%s", cmd.path, strings.Join(cmd.args, " "), err, tail(stderr.String()))
	}
	if c != nil {
		after, err := c.requests(ctx)
		if err != nil {
			return s, err
		}
		s.Requests, s.ByKind = clientRequests(before, after), breakdown(before, after)
	}
	if cmd.report {
		if err := json.Unmarshal(stdout.Bytes(), &s.Result); err != nil {
			return s, fmt.Errorf("read the report of %s %s: %w", cmd.path, strings.Join(cmd.args, " "), err)
		}
		s.RSS = s.Result.RSS
	}
	return s, nil
}

func exitAllowed(code int, ok []int) bool {
	for _, c := range ok {
		if c == code {
			return true
		}
	}
	return false
}

// tail keeps the end of a long stderr.
func tail(s string) string {
	const max = 4000
	if len(s) > max {
		return "…" + s[len(s)-max:]
	}
	return s
}
