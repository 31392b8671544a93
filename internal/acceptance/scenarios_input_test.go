package acceptance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pynenc/piceli/internal/cli"
)

// Commands a bad input is fed to. HASH stands for the hash of a good plan
// stored before the input went bad.
var (
	// every command that reads release.toml
	specCommands = [][]string{
		{"render"}, {"release", "plan"}, {"release", "diff"}, {"release", "apply", "--approve", "HASH"},
		{"release", "resume"}, {"release", "stop"}, {"release", "rollback"}, {"release", "run"},
		{"release", "history"}, {"release", "gc"}, {"release", "secret", "show", "s"},
	}
	// every command that reads the composition
	compositionCommands = [][]string{
		{"render"}, {"release", "plan"}, {"release", "diff"}, {"release", "apply", "--approve", "HASH"},
	}
	// the commands that ask the cluster about the composition; render,
	// which needs no cluster, renders such input as given
	clusterCommands = [][]string{
		{"release", "plan"}, {"release", "diff"}, {"release", "apply", "--approve", "HASH"},
	}
)

// badInput is one kind of bad input.
type badInput struct {
	name, fault string
	fast        bool
	commands    [][]string
	// spoil makes the input bad; the release was good until then.
	spoil func(e *env)
	// where: fragments every refusal must hold (the file, line, key or
	// object it names, and what is wrong)
	where func(e *env) []string
}

// inputScenarios feed bad input to every command that reads it: each must
// exit 2 naming the place, print no manifests, write nothing to the
// cluster (the proxy sees no write) and change nothing in the state
// directory.
func inputScenarios() []scenario {
	var out []scenario
	for _, b := range badInputs() {
		out = append(out, scenario{
			name:     b.name + " is refused by every command that reads it",
			fault:    b.fault,
			expected: fmt.Sprintf("%d commands each exit 2 naming the place; no cluster or state change", len(b.commands)),
			fast:     b.fast,
			run:      func(c *sc) { refuseEverywhere(c, b) },
		})
	}
	return append(out, scenario{
		name:     "bad arguments to apply are refused",
		fault:    "--approve with no hash, a non-hex one, a short one, an unknown one; an unknown flag",
		expected: "each exits 2 saying what is wrong; no cluster or state change",
		fast:     true,
		run:      badArguments,
	})
}

func badInputs() []badInput {
	spec := func(e *env, add string) { writeFile(e.t, e.spec, string(readFile(e.t, e.spec))+add) }
	specAt := func(e *env, line int, fragments ...string) []string {
		return append([]string{fmt.Sprintf("release.toml:%d", line)}, fragments...)
	}
	// release.toml (writeSpec) has ready_timeout on line 9, the last; added
	// lines start at line 10.
	const nextLine = 10
	return []badInput{
		{
			name: "malformed TOML", fault: "an unterminated string in release.toml", fast: true, commands: specCommands,
			spoil: func(e *env) { spec(e, "owner = \"unterminated\n") },
			where: func(e *env) []string { return specAt(e, nextLine, "invalid TOML") },
		},
		{
			name: "an oversized release.toml", fault: "release.toml padded past 1 MiB with comments", fast: true, commands: specCommands,
			spoil: func(e *env) { spec(e, strings.Repeat("# padding\n", 120_000)) },
			where: func(e *env) []string { return []string{"release.toml", "larger than 1 MiB"} },
		},
		{
			name: "an unknown key in release.toml", fault: "release.colour = \"blue\"", fast: true, commands: specCommands,
			spoil: func(e *env) { spec(e, "colour = \"blue\"\n") },
			where: func(e *env) []string { return specAt(e, nextLine, "release.colour", "unknown key") },
		},
		{
			name: "a wrongly typed key in release.toml", fault: "release.prune = \"yes\" (a string, not a boolean)", commands: specCommands,
			spoil: func(e *env) { spec(e, "prune = \"yes\"\n") },
			where: func(e *env) []string { return specAt(e, nextLine, "release.prune", "want boolean") },
		},
		{
			name: "an invalid namespace name in release.toml", fault: "target.namespace = \"Not_A_Name\"", commands: specCommands,
			spoil: func(e *env) {
				writeFile(e.t, e.spec, strings.Replace(string(readFile(e.t, e.spec)), fmt.Sprintf("namespace = %q", e.ns), `namespace = "Not_A_Name"`, 1))
			},
			where: func(e *env) []string { return specAt(e, 4, "target.namespace", "DNS-1123") },
		},
		{
			name: "an absurd readiness timeout in release.toml", fault: "release.ready_timeout = \"-5s\"", fast: true, commands: specCommands,
			spoil: func(e *env) {
				writeFile(e.t, e.spec, strings.Replace(string(readFile(e.t, e.spec)), `ready_timeout = "30s"`, `ready_timeout = "-5s"`, 1))
			},
			where: func(e *env) []string { return specAt(e, 9, "release.ready_timeout", "between 1s and 24h") },
		},
		{
			name: "malformed YAML", fault: "an unclosed flow sequence in cm-a.yaml", fast: true, commands: compositionCommands,
			spoil: func(e *env) {
				e.setManifest("cm-a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: [oops\n")
			},
			where: func(e *env) []string { return []string{"cm-a.yaml:5", "invalid YAML"} },
		},
		{
			name: "a YAML alias bomb", fault: "nine levels of nine aliases each (a billion-laughs document)", fast: true, commands: compositionCommands,
			spoil: func(e *env) { e.setManifest("bomb.yaml", aliasBomb()) },
			where: func(e *env) []string { return []string{"bomb.yaml", "excessive aliasing"} },
		},
		{
			name: "malformed JSON", fault: "a JSON manifest cut off before its closing braces", fast: true, commands: compositionCommands,
			spoil: func(e *env) {
				e.setManifest("x.json", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"`)
			},
			where: func(e *env) []string { return []string{"x.json:1", "invalid"} },
		},
		{
			name: "an oversized manifest", fault: "a 33 MiB YAML file", commands: compositionCommands,
			spoil: func(e *env) {
				e.setManifest("big.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n# "+strings.Repeat("x", 33<<20)+"\n")
			},
			where: func(e *env) []string { return []string{"big.yaml", "larger than 32 MiB"} },
		},
		{
			name: "a deeply nested JSON manifest", fault: "200,000 nested arrays in one JSON value", commands: compositionCommands,
			spoil: func(e *env) {
				e.setManifest("deep.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":`+strings.Repeat("[", 200_000)+strings.Repeat("]", 200_000)+"}")
			},
			where: func(e *env) []string { return []string{"deep.json:1", "max depth"} },
		},
		{
			name: "an empty composition", fault: "every manifest replaced by a comment", fast: true, commands: compositionCommands,
			spoil: func(e *env) {
				dir := filepath.Join(e.dir, "manifests")
				entries, _ := os.ReadDir(dir)
				for _, en := range entries {
					os.Remove(filepath.Join(dir, en.Name()))
				}
				e.setManifest("empty.yaml", "# nothing here\n")
			},
			where: func(e *env) []string { return []string{"declares no objects"} },
		},
		{
			name: "an unknown kind", fault: "a manifest of kind Gizmo in v1", fast: true, commands: clusterCommands,
			spoil: func(e *env) { e.setManifest("gizmo.yaml", "apiVersion: v1\nkind: Gizmo\nmetadata:\n  name: g\n") },
			where: func(e *env) []string { return []string{"Gizmo/" + e.ns + "/g", "gizmo.yaml:1", `no kind "Gizmo"`} },
		},
		{
			name: "an unknown field in a manifest", fault: "a ConfigMap with a top-level field datum", commands: clusterCommands,
			spoil: func(e *env) {
				e.setManifest("cm-a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndatum:\n  value: \"1\"\n")
			},
			where: func(e *env) []string {
				return []string{"ConfigMap/" + e.ns + "/a", "cm-a.yaml:1", ".datum: field not declared"}
			},
		},
		{
			name: "an invalid object name", fault: "a ConfigMap named Bad_Name", fast: true, commands: clusterCommands,
			spoil: func(e *env) { e.setManifest("bad.yaml", configMap("Bad_Name", "1")) },
			where: func(e *env) []string {
				return []string{"ConfigMap/Bad_Name", "bad.yaml:1", "metadata.name"}
			},
		},
		{
			name: "a negative replica count", fault: "a Deployment with replicas: -3 (an absurd value)", commands: clusterCommands,
			spoil: func(e *env) {
				e.setManifest("deploy.yaml", strings.Replace(deployment("web", ""), "replicas: 1", "replicas: -3", 1))
			},
			where: func(e *env) []string { return []string{"Deployment/" + e.ns + "/web", "spec.replicas", "-3"} },
		},
		{
			name: "an out-of-range port", fault: "a Service port 70000", commands: clusterCommands,
			spoil: func(e *env) {
				e.setManifest("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 70000\n")
			},
			where: func(e *env) []string { return []string{"Service/" + e.ns + "/web", "70000", "between 1 and 65535"} },
		},
	}
}

// aliasBomb is a billion-laughs YAML document: 9^9 strings if expanded.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		ref := "*" + prev
		fmt.Fprintf(&b, "  %s: &%s [%s]\n", name, name, strings.Repeat(ref+",", 8)+ref)
		prev = name
	}
	return b.String()
}

// refuseEverywhere stores a good plan, spoils the input, and feeds it to
// every command of b.
func refuseEverywhere(c *sc, b badInput) {
	e := c.env(envOptions{})
	p := e.plan()
	e.snapshotBefore()
	b.spoil(e)
	for _, cmd := range b.commands {
		args := append([]string{}, cmd...)
		for i, a := range args {
			if a == "HASH" {
				args[i] = p.Hash
			}
		}
		args = append(args, "--spec", e.spec)
		res := e.piceli(args...)
		what := "piceli " + strings.Join(cmd, " ")
		if res.code != cli.ExitRefused {
			e.t.Errorf("%s of %s: %s\nwant exit 2", what, b.name, res)
			continue
		}
		wantIn(e.t, what+"'s refusal", res.stderr, b.where(e)...)
		if strings.Contains(res.stdout, "apiVersion") {
			e.t.Errorf("%s of %s printed manifests:\n%s", what, b.name, res.stdout)
		}
	}
}

// badArguments gives apply arguments it must refuse.
func badArguments(c *sc) {
	e := c.env(envOptions{})
	e.plan()
	e.snapshotBefore()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--approve"}, "flag needs an argument"},
		{[]string{"--approve", "not-a-hash!"}, "not-a-hash!"},
		{[]string{"--approve", "ab12"}, "ab12"},
		{[]string{"--approve", "0123456789ab"}, "no such plan"},
		{[]string{"--approve", "0123456789ab", "--no-such-flag"}, "unknown flag"},
	} {
		res := e.release("apply", tc.args...)
		if res.code != cli.ExitRefused || !strings.Contains(res.stderr, tc.want) {
			e.t.Errorf("release apply %s: %s\nwant exit 2 saying %q", strings.Join(tc.args, " "), res, tc.want)
		}
	}
}
