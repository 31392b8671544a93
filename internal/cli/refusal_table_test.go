package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// argsOf are the positional arguments a command needs before it looks at
// its flags, and the flags it needs before it reads its spec.
var argsOf = map[string][]string{
	"release secret show":    {"db"},
	"deploy show":            {"20260101-000000-abcdef"},
	"artifacts inspect":      {"layout"},
	"artifacts import":       {"layout"},
	"import yaml":            {"in.yaml", "--out", passphraseFile + ".module"},
	"state import":           {passphraseFile, "--passphrase-file", passphraseFile},
	"release archive":        {"--out", "archives"},
	"state export":           {"--out", "exports", "--passphrase-file", passphraseFile},
	"state migrate":          {"cluster"},
	"promote":                {"--from", "staging", "--to", "prod"},
	"controller approve":     {"ns/app", "0123456789ab"},
	"controller sync":        {"ns/app"},
	"controller rollback":    {"ns/app", "--to", "0123456789ab"},
	"controller unpin":       {"ns/app"},
	"controller stop":        {"ns/app"},
	"sandbox load":           {"image.tar"},
	"observe forward-save":   {"api"},
	"observe forward-delete": {"api"},
	"observe forward-run":    {"api"},
}

// passphraseFile in argsOf stands for a passphrase file the test writes.
const passphraseFile = "PASSPHRASE-FILE"

// Acceptance 3 of issue 29: bad input exits 2 (ExitRefused) in every
// command, naming what was wrong: a spec file that is not there (release
// spec or build spec alike), an output format no command has, an unknown
// flag, arguments it does not take. Nothing here reaches a cluster: each is refused first.
func TestEveryCommandRefusesBadInputWithExit2(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nowhere", "spec.toml")
	writeFiles(t, dir, map[string]string{"passphrase": "correct horse battery staple\n"})
	for path, c := range runnable(NewRoot()) {
		args := strings.Fields(path)
		for _, a := range argsOf[path] {
			args = append(args, strings.ReplaceAll(a, passphraseFile, filepath.Join(dir, "passphrase")))
		}
		cases := map[string]struct {
			args []string
			want string
		}{
			"an unknown flag": {append(slices.Clone(args), "--no-such-flag"), "--no-such-flag"},
		}
		if len(argsOf[path]) == 0 || strings.HasPrefix(argsOf[path][0], "-") {
			cases["an argument too many"] = struct {
				args []string
				want string
			}{append(slices.Clone(args), "one", "two", "three"), "one|received 3"}
		}
		if c.Flags().Lookup("spec") != nil {
			cases["a spec file that is not there"] = struct {
				args []string
				want string
			}{append(slices.Clone(args), "--spec", missing), missing}
		}
		if c.Flags().Lookup("output") != nil {
			cases["an output format no command has"] = struct {
				args []string
				want string
			}{append(slices.Clone(args), "-o", "xml"), "xml"}
		}
		for name, tc := range cases {
			t.Run(path+": "+name, func(t *testing.T) {
				res := run(t, tc.args...)
				named := slices.ContainsFunc(strings.Split(tc.want, "|"), func(w string) bool { return strings.Contains(res.stderr, w) })
				if res.code != ExitRefused || !named {
					t.Errorf("piceli %s: exit %d, want %d naming %q\n%s", strings.Join(tc.args, " "), res.code, ExitRefused, tc.want, res.stderr)
				}
			})
		}
	}
}
