package guide

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// marker opens each block's part of the combined output.
const marker = "@@piceli-guide-block "

// RunOptions says where and how a guide's blocks run.
type RunOptions struct {
	Dir string   // working directory of the shell
	Env []string // its whole environment
	// Log, when set, receives the output as it comes.
	Log io.Writer
}

// Output is what one block printed.
type Output struct {
	Block Block
	Text  string
}

// Run runs the blocks in order in one bash session (set -euo pipefail), so
// a variable set in one block is seen by the next, as when a reader types
// them into one terminal. It stops at the first block that fails or whose
// output lacks an expected text, and names that block's line. It returns
// the output of every block that ran.
func Run(ctx context.Context, name string, blocks []Block, opts RunOptions) ([]Output, error) {
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for i, b := range blocks {
		fmt.Fprintf(&script, "echo '%s%d@@'\n%s", marker, i, b.Script)
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	var out bytes.Buffer
	w := io.Writer(&out)
	if opts.Log != nil {
		w = io.MultiWriter(&out, opts.Log)
	}
	cmd.Stdout, cmd.Stderr = w, w
	runErr := cmd.Run()
	outs := split(blocks, out.String())
	for _, o := range outs {
		for _, want := range o.Block.Expect {
			if !strings.Contains(o.Text, want) {
				return outs, fmt.Errorf("%s:%d: output lacks %q:\n%s", name, o.Block.Line, want, o.Text)
			}
		}
	}
	if runErr != nil {
		line := 0
		if len(outs) > 0 {
			line = outs[len(outs)-1].Block.Line
		}
		return outs, fmt.Errorf("%s:%d: block failed: %w:\n%s", name, line, runErr, lastText(outs))
	}
	if len(outs) != len(blocks) {
		return outs, fmt.Errorf("%s: only %d of %d blocks ran", name, len(outs), len(blocks))
	}
	return outs, nil
}

// split cuts the combined output at the markers.
func split(blocks []Block, text string) []Output {
	var outs []Output
	for _, part := range strings.Split(text, marker)[1:] {
		num, rest, ok := strings.Cut(part, "@@\n")
		i, err := strconv.Atoi(num)
		if !ok || err != nil || i >= len(blocks) {
			continue
		}
		outs = append(outs, Output{Block: blocks[i], Text: rest})
	}
	return outs
}

func lastText(outs []Output) string {
	if len(outs) == 0 {
		return ""
	}
	return outs[len(outs)-1].Text
}
