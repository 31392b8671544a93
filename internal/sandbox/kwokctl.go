package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// kwokctl runs the cached kwokctl binary with KWOK_WORKDIR set to the
// sandbox workdir and the cache directory first on PATH (kwokctl looks up
// kubectl there). Its output is appended to the sandbox log; on failure the
// error carries the last lines.
func (s *Sandbox) kwokctl(ctx context.Context, args ...string) error {
	if err := os.MkdirAll(s.layout.Workdir(), 0o755); err != nil {
		return err
	}
	logFile, err := os.OpenFile(s.layout.Log(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	var tail bytes.Buffer
	cmd := exec.CommandContext(ctx, s.bins.Path(BinKwokctl), args...)
	cmd.Env = append(os.Environ(),
		"KWOK_WORKDIR="+s.layout.Workdir(),
		"PATH="+s.bins.Dir+string(filepath.ListSeparator)+os.Getenv("PATH"),
	)
	cmd.Stdout = io.MultiWriter(logFile, &tail)
	cmd.Stderr = cmd.Stdout
	// kwokctl forks the components and exits; do not wait on their pipes.
	cmd.WaitDelay = waitDelay
	fmt.Fprintf(logFile, "$ kwokctl %v\n", args)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kwokctl %s: %w\n%s\n(full log: %s)", args[0], err, lastLines(tail.String(), 15), s.layout.Log())
	}
	return nil
}
