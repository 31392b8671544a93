package guide_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/guide"
)

func TestParseKeepsOnlyShBlocksAndTheirExpectations(t *testing.T) {
	doc := strings.Join([]string{
		"# Title",
		"```sh",
		"echo one",
		"echo two",
		"```",
		"<!-- expect: one -->",
		"text in between",
		"<!-- expect: two -->",
		"```console",
		"$ not run",
		"```",
		"```go",
		"func main() {}",
		"```",
		"```sh",
		"echo three",
		"```",
	}, "\n")
	got, err := guide.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []guide.Block{
		{Line: 2, Script: "echo one\necho two\n", Expect: []string{"one", "two"}},
		{Line: 15, Script: "echo three\n"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestParseRefusesBrokenGuides(t *testing.T) {
	for name, doc := range map[string]string{
		"unclosed fence":        "```sh\necho hi\n",
		"expect before a block": "<!-- expect: hi -->\n```sh\necho hi\n```\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := guide.Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), "line ") {
				t.Errorf("Parse = %v; want an error naming the line", err)
			}
		})
	}
}

func TestRunSharesTheShellAndChecksEachBlock(t *testing.T) {
	blocks := []guide.Block{
		{Line: 3, Script: "greeting=hello\necho $greeting world\n", Expect: []string{"hello world"}},
		{Line: 9, Script: "echo again $greeting\n", Expect: []string{"again hello"}},
	}
	outs, err := guide.Run(t.Context(), "g.md", blocks, guide.RunOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || outs[1].Text != "again hello\n" {
		t.Errorf("outputs = %+v", outs)
	}
}

func TestRunNamesTheFailingBlock(t *testing.T) {
	for name, tc := range map[string]struct {
		blocks []guide.Block
		want   string
	}{
		"non-zero exit": {[]guide.Block{{Line: 3, Script: "true\n"}, {Line: 7, Script: "false\necho never\n"}}, "g.md:7: block failed"},
		"missing text":  {[]guide.Block{{Line: 3, Script: "echo hi\n", Expect: []string{"bye"}}}, `g.md:3: output lacks "bye"`},
		"pipe failure":  {[]guide.Block{{Line: 5, Script: "false | cat\n"}}, "g.md:5: block failed"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := guide.Run(t.Context(), "g.md", tc.blocks, guide.RunOptions{Dir: t.TempDir()})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Run = %v; want an error starting %q", err, tc.want)
			}
		})
	}
}
