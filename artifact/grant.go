package artifact

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pynenc/piceli/refusal"
)

// The tools an import may run, each only when granted.
const (
	ToolCtr    = "ctr"
	ToolDocker = "docker"
	ToolSSH    = "ssh"
)

// Grant lets an import run one external tool: Tool names it ("ctr",
// "docker", "ssh") and Path is the program to run for it.
type Grant struct {
	Tool string
	Path string
}

// ParseGrant reads "TOOL=PATH", as --grant takes it.
func ParseGrant(s string) (Grant, error) {
	tool, path, ok := strings.Cut(s, "=")
	if !ok || tool == "" || path == "" {
		return Grant{}, fmt.Errorf("grant %q: want TOOL=PATH, such as ctr=/usr/bin/ctr", s)
	}
	if !slices.Contains([]string{ToolCtr, ToolDocker, ToolSSH}, tool) {
		return Grant{}, fmt.Errorf("grant %q: unknown tool %q (imports run ctr, docker or ssh)", s, tool)
	}
	return Grant{Tool: tool, Path: path}, nil
}

// Tool is a granted tool as it was resolved: the absolute path that runs
// and the version it reported. Receipts record it.
type Tool struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Version string `json:"version"`
}

// GrantError says that an import needs a tool nobody granted; nothing ran.
type GrantError struct {
	Target string
	Tool   string
}

// Error names the missing grant and how to give it.
func (e *GrantError) Error() string {
	return fmt.Sprintf("import to %s runs %s, which is not granted; nothing was run: grant it as %s=PATH (for example %s=%s)",
		e.Target, e.Tool, e.Tool, e.Tool, exampleToolPath(e.Tool))
}

// Is reports that a missing grant is a refusal (refusal.Is).
func (e *GrantError) Is(target error) bool { return target == refusal.ErrRefused }

func exampleToolPath(tool string) string {
	if tool == ToolSSH {
		return "/usr/bin/ssh"
	}
	return "/usr/bin/" + tool
}

// resolveGrants checks that grants are exactly the tools target needs and
// resolves each to an absolute, executable path and its version. It runs
// nothing but the granted tools' version commands.
func resolveGrants(ctx context.Context, target string, needs []string, grants []Grant) (map[string]Tool, error) {
	byTool := map[string]Grant{}
	for _, g := range grants {
		if _, dup := byTool[g.Tool]; dup {
			return nil, fmt.Errorf("grant of %s is given twice", g.Tool)
		}
		if !slices.Contains(needs, g.Tool) {
			return nil, fmt.Errorf("grant of %s: import to %s does not run %s; grant only what it runs (%s)", g.Tool, target, g.Tool, needsText(needs))
		}
		byTool[g.Tool] = g
	}
	for _, n := range needs {
		if _, ok := byTool[n]; !ok {
			return nil, &GrantError{Target: target, Tool: n}
		}
	}
	tools := map[string]Tool{}
	for _, n := range needs {
		t, err := resolveTool(ctx, byTool[n])
		if err != nil {
			return nil, err
		}
		tools[n] = t
	}
	return tools, nil
}

func needsText(needs []string) string {
	if len(needs) == 0 {
		return "no external tool"
	}
	return strings.Join(needs, ", ")
}

// resolveTool finds the granted program (a bare name is looked up on PATH),
// resolves it to an absolute path without symbolic links, and asks it for
// its version.
func resolveTool(ctx context.Context, g Grant) (Tool, error) {
	p := g.Path
	if !strings.ContainsRune(p, filepath.Separator) {
		found, err := exec.LookPath(p)
		if err != nil {
			return Tool{}, fmt.Errorf("grant %s=%s: %w", g.Tool, g.Path, err)
		}
		p = found
	}
	abs, err := filepath.Abs(p)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return Tool{}, fmt.Errorf("grant %s=%s: %w", g.Tool, g.Path, err)
	}
	info, err := os.Stat(abs)
	if err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
		return Tool{}, fmt.Errorf("grant %s=%s: %s is not an executable file", g.Tool, g.Path, abs)
	}
	v, err := toolVersion(ctx, g.Tool, abs)
	if err != nil {
		return Tool{}, fmt.Errorf("grant %s=%s: ask its version: %w", g.Tool, g.Path, err)
	}
	return Tool{Name: g.Tool, Path: abs, Version: v}, nil
}

// toolVersion runs the tool's version command, bounded in time.
func toolVersion(ctx context.Context, tool, path string) (string, error) {
	args := map[string][]string{ToolCtr: {"--version"}, ToolDocker: {"--version"}, ToolSSH: {"-V"}}[tool]
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &out, &out // ssh -V prints on stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w", path, strings.Join(args, " "), err)
	}
	return firstLine(out.String()), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
