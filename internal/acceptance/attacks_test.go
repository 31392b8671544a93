package acceptance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// attack is one row of the security table: an attack from the trust
// model (docs/security.md) and the test that performs it. The test lives
// beside the code it protects and is named TestSecurity…; the table runs
// it where it lives.
type attack struct {
	boundary string // the section of docs/security.md
	attack   string // what the attacker does, a sentence
	held     string // what must hold afterwards
	pkg      string // the test's package, relative to the repository root
	test     string // the test's name
}

// attacks is the security table, in the order of docs/security.md.
func attacks() []attack {
	const (
		input    = "Input is hostile: names, paths and generated code"
		approval = "Approval by hash"
		state    = "Shared and local state"
		undo     = "Automatic rollback and compensation"
		reads    = "Bounded reads and prompt signals"
		lens     = "The operations lens"
		redact   = "Redaction"
		sandbox  = "The sandbox stays on this machine"
		ctl      = "The controller in the cluster"
	)
	return []attack{
		{ctl, "a user who may create Releases targets a namespace without the deployer RoleBinding, or one whose binding serves only its own namespace's Releases", "each Release is Stalled naming the missing RoleBinding or annotation; nothing is written there, not even shared state", "./controller", "TestSecurityAReleaseWritesOnlyWhereTheDeployerRoleIsBound"},
		{ctl, "a Release names a Secret of its namespace that holds a database password as its Git credentials, pointing at a server of its author's", "the Release is Stalled naming the missing credentials label; the Secret's data is never used", "./controller", "TestSecurityAReleaseCannotSendAnUnlabelledSecret"},
		{ctl, "a release the controller delivers imports a secret value from the cluster", "no encoding of the value is in the Release's status, its Events, the controller's log or its metrics", "./controller", "TestSecurityControllerStatusEventsLogsAndMetricsHoldNoSecret"},
		{state, "a ServiceAccount that may only get, create and update Secrets in the namespace rewrites the shared snapshot (re-chunked, re-digested, re-sealed with the stolen digest key, or re-signed with its own key) to add a ClusterRoleBinding to cluster-admin; the operator's next run fails its check under on_failure = rollback", "the forged snapshot is refused naming what failed; no ClusterRoleBinding exists; the ServiceAccount still may not do everything", "./internal/cli", "TestSecurityForgedSharedStateIsRefused"},
		{state, "older state Secrets are restored (a namespace backup), and the state is deleted", "each refused with exit 2 saying so; nothing merged into the cache; state pull --accept-older takes exactly that generation and logs it", "./internal/cli", "TestSecurityReplayedStateIsRefused"},
		{state, "a machine's own run is killed before its first push while another machine's later run is interrupted", "resume on the first machine continues the later run", "./internal/cli", "TestSecurityLatestRunAcrossMachines"},
		{undo, "a hand-edited local revision adds a ClusterRoleBinding (automatic rollback) or forged ConfigMap data (compensation)", "the revision is refused as damaged; no binding is created and no forged data restored", "./internal/cli", "TestSecurityForgedLocalRevisionIsNotApplied"},
		{undo, "a hand-edited journal marks steps in doubt whose objects differ from the approved plan", "resume writes only objects matching their step's sealed digest", "./internal/apply", "TestSecurityResumeWritesOnlyWhatThePlanSealed"},
		{undo, "a hand-edited run-start record names another stored plan", "resume refuses the run: its start is sealed to the plan approved for it", "./internal/apply", "TestSecurityResumeRunsOnlyThePlanItsRunWasApprovedFor"},
		{input, "a YAML composition names an object x/../../…/victim and runs render --out", "exit 2 naming the file, line and key; nothing written in or outside the directory", "./internal/cli", "TestSecurityRenderOutStaysInItsDirectory"},
		{input, "the escaping name goes through import yaml, and through a Go module declaring it, to render --out", "import and render exit 2; nothing written in or outside the directory", "./internal/cli", "TestSecurityImportedModuleStaysInItsDirectory"},
		{input, "render writes objects whose names climb out or exceed a file name, into a directory holding a symlink out", "every file lands inside the directory; the symlink's target is untouched", "./internal/render", "TestSecurityRenderWriteDirStaysInItsDirectory"},
		{input, "a chart directory holds a template that is a symlink to a file outside it", "the chart is refused naming the file; nothing outside is read", "./internal/compose/chart", "TestSecurityChartSymlinkOutOfItsFolderIsRefused"},
		{input, "a chart's template reads ../ and absolute paths through .Files.Get and .Files.Glob", "the rendered objects carry nothing from outside the chart", "./internal/compose/chart", "TestSecurityChartFilesGetStaysInTheChart"},
		{input, "a packaged chart holds an entry ../../escape.yaml", "the chart is refused; nothing is written", "./internal/compose/chart", "TestSecurityChartArchiveWithDotDotEntryIsRefused"},
		{input, "a kustomization names a file outside its root by absolute path or through a symlink", "the build is refused; nothing outside is read", "./internal/compose/kustomize", "TestSecurityKustomizationStaysInItsRoot"},
		{input, "a composition's object carries {{ }} template syntax into chart export", "every {{ is escaped: helm template prints the text and runs nothing from it", "./internal/helmchart", "TestSecurityChartExportEscapesTemplateSyntax"},
		{reads, "a published layout links a layer to /dev/zero, holds a blob whose digest is wrong, or an index naming two manifests", "each is refused before its content is used; reads stay bounded", "./publish", "TestSecurityPublishedLayoutIsVerifiedAndBounded"},
		{input, "import yaml of names holding a newline, */, func init(), backquotes and quotes", "exit 2 naming the file, document and key; nothing written; the injected init never runs", "./internal/cli", "TestSecurityImportNamesNeverBecomeCode"},
		{input, "the generator is handed such names, namespaces, paths and contexts directly", "every Go file parses and declares only Build and literal functions, no init, no block comment; one YAML document per file", "./internal/importgen", "TestSecurityGeneratedCodeCarriesNoInput"},
		{input, "import yaml of a valid 253-character name in a 63-character namespace", "imported and rendered as it was; its file name fits", "./internal/cli", "TestSecurityImportOfALongName"},
		{input, "a CRD whose names, descriptions and enum values end comments and strings, carrying \\r, U+2028, NUL, a BOM and an RLO, goes through codegen crd", "the files parse and declare only types, constants, New* and DeepCopy methods, no init; a program using them runs nothing injected and reads every enum value back", "./internal/crdgen", "TestSecurityCRDCodegenRunsNothingFromTheCRD"},
		{input, "a CRD whose group, version and kind are ../ paths, written into an --out holding a symlink out", "every file lands below --out; nothing outside is written or removed", "./internal/cli", "TestSecurityCodegenCRDWritesOnlyInsideOut"},
		{reads, "a layer blob that is a symlink to /dev/zero or a FIFO given to artifacts inspect and import, a kubeconfig whose tokenFile is /dev/zero, a FIFO given as --spec; SIGINT after 0.5 s", "each refused at once or ended within 2 s of the signal; memory stays bounded", "./internal/cli", "TestSecurityHostileReadsEndPromptly"},
		{lens, "a crafted session archive pairs kind ConfigMap with resource secrets, names kube-system, or a kind the cluster does not serve", "refused by name before any LIST; secrets are only ever listed as metadata", "./observe", "TestSecurityLensRefusesACraftedArchive"},
		{lens, "a local process GETs the lens's page and API without the one-time launch URL", "no token in any answer; the API refuses it; a second use of the launch URL is refused", "./observe", "TestSecurityLensTokenNeedsTheLaunchURL"},
		{redact, "a check prints a canary secret value in upper- and lower-case hex, byte-spaced hex, base64, base64url, base32 and split across lines", "no encoding of it reaches the journal, archive.json, history, release check -o json or release run -o json", "./internal/cli", "TestSecurityRedactionCoversEncodings"},
		{approval, "a stored plan is loaded by a glob, a character class, ../, upper case, 11 or 65 digits", "each refused with ErrBadHash; 12 to 64 lower-case digits load it", "./internal/plan", "TestSecurityApprovalTakesOnlyHexDigits"},
		{approval, "release apply, rollback, deploy and registry install/uninstall get a glob, a path, upper case, 11 or 65 digits", "each exits 2 stating the rule; nothing read from a cluster or written", "./internal/cli", "TestSecurityApprovalIsHexEverywhere"},
		{approval, "with a plan stored on the sandbox, --approve 'dd2a********' and the other bad forms", "exit 2; the ConfigMap is never written and no run starts; the plan's own 12 digits then apply it", "./internal/cli", "TestSecurityGlobApprovalAppliesNothing"},
		{sandbox, "a test registers a validating webhook (failurePolicy Fail) and an APIService backed by Services whose ClusterIPs lie off the machine, then writes an object the webhook matches", "the write fails with the egress proxy's 403 naming the ClusterIP; the proxy counts and logs both ClusterIPs; kube-apiserver holds no connection to an address off loopback", "./internal/sandbox", "TestSecurityAPIServerEgressStaysOnTheMachine"},
	}
}

// securityTestRE matches the declaration of a security test.
var securityTestRE = regexp.MustCompile(`(?m)^func (TestSecurity[A-Za-z0-9_]*)\(t \*testing\.T\)`)

// securityTests finds every TestSecurity… in the repository's test files
// (the tools modules and the acceptance suite itself aside), keyed by name
// with its package directory.
func securityTests(t *testing.T) map[string]string {
	t.Helper()
	root := repoRoot()
	found := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "tools" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range securityTestRE.FindAllSubmatch(src, -1) {
			found[string(m[1])] = "./" + filepath.ToSlash(rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("find the security tests: %v", err)
	}
	return found
}

// TestEveryAttackIsTabled holds the table and the code together: every
// TestSecurity… in the repository has a row, and every row names a test
// that exists in the package it says. It needs no cluster.
func TestEveryAttackIsTabled(t *testing.T) {
	found := securityTests(t)
	tabled := map[string]bool{}
	for _, a := range attacks() {
		if a.boundary == "" || a.attack == "" || a.held == "" {
			t.Errorf("security row %s lacks a boundary, an attack or what must hold", a.test)
		}
		if tabled[a.test] {
			t.Errorf("security test %s has two rows", a.test)
		}
		tabled[a.test] = true
		if pkg, ok := found[a.test]; !ok {
			t.Errorf("security row names %s, but no test file declares it", a.test)
		} else if pkg != a.pkg {
			t.Errorf("security row puts %s in %s, but it is declared in %s", a.test, a.pkg, pkg)
		}
	}
	for name, pkg := range found {
		if !tabled[name] {
			t.Errorf("%s (%s) performs an attack but has no row in attacks(): add one", name, pkg)
		}
	}
}

// runAttackTable runs every security test where it lives (one `go test`
// per package). TestAcceptance calls it on a full run only: `make test`
// already runs each of them in its own package. It prints the table and,
// with UpdateEnv=1, writes it into docs/acceptance.md.
func runAttackTable(t *testing.T) {
	rows := attacks()
	results := map[string]testResult{}
	for _, pkg := range attackPackages(rows) {
		for name, r := range runPackageTests(t, pkg, rows) {
			results[name] = r
		}
	}
	text := attackMarkdown(rows, results)
	fmt.Print("\n" + text)
	for _, a := range rows {
		if r := results[a.test]; r.result != "pass" {
			t.Errorf("security test %s (%s): %s\n%s", a.test, a.pkg, orDash(r.result, "did not run"), strings.Join(r.output, "\n"))
		}
	}
	if os.Getenv(UpdateEnv) == "1" && !t.Failed() {
		writeDocSection(t, securityMarker, text)
	}
}

// attackPackages lists the packages of rows, each once, in table order.
func attackPackages(rows []attack) []string {
	var pkgs []string
	for _, a := range rows {
		if !slices.Contains(pkgs, a.pkg) {
			pkgs = append(pkgs, a.pkg)
		}
	}
	return pkgs
}

// testResult is how one test ended: "pass", "FAIL" or "skip".
type testResult struct {
	result  string
	seconds float64
	output  []string // the test's last lines of output, to say why it failed
}

// maxOutputLines bounds what a testResult keeps of its test's output.
const maxOutputLines = 40

// runPackageTests runs the rows' tests of pkg with `go test -json` and
// reads how each ended. The sandbox's environment passes through.
func runPackageTests(t *testing.T, pkg string, rows []attack) map[string]testResult {
	t.Helper()
	var names []string
	for _, a := range rows {
		if a.pkg == pkg {
			names = append(names, regexp.QuoteMeta(a.test))
		}
	}
	cmd := exec.Command("go", "test", "-count=1", "-json", "-timeout", "20m", "-run", "^("+strings.Join(names, "|")+")$", pkg)
	cmd.Dir = repoRoot()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	results := parseTestJSON(out.Bytes())
	if err != nil && len(results) == 0 {
		t.Errorf("go test %s: %v\n%s%s", pkg, err, stderr.String(), lastLines(out.String(), 20))
	}
	return results
}

// parseTestJSON reads the top-level tests' outcomes from `go test -json`.
func parseTestJSON(out []byte) map[string]testResult {
	results := map[string]testResult{}
	output := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Action  string
			Test    string
			Elapsed float64
			Output  string
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		top, _, _ := strings.Cut(ev.Test, "/")
		if ev.Action == "output" {
			lines := append(output[top], strings.TrimRight(ev.Output, "\n"))
			output[top] = lines[max(0, len(lines)-maxOutputLines):]
			continue
		}
		if top != ev.Test {
			continue
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			results[ev.Test] = testResult{result: map[string]string{"pass": "pass", "fail": "FAIL", "skip": "skip"}[ev.Action], seconds: ev.Elapsed, output: output[top]}
		}
	}
	return results
}

// attackMarkdown renders the security table.
func attackMarkdown(rows []attack, results map[string]testResult) string {
	var b strings.Builder
	passed := 0
	for _, a := range rows {
		if results[a.test].result == "pass" {
			passed++
		}
	}
	fmt.Fprintf(&b, "security table: %d of %d attacks held (%s)\n\n", passed, len(rows), time.Now().UTC().Format("2006-01-02"))
	b.WriteString("| boundary | attack | what holds | test | result | seconds |\n| --- | --- | --- | --- | --- | ---: |\n")
	for _, a := range rows {
		r := results[a.test]
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` (%s) | %s | %.1f |\n", cell(a.boundary), cell(a.attack), cell(a.held), a.test, a.pkg, orDash(r.result, "not run"), r.seconds)
	}
	return b.String()
}

func orDash(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// lastLines is the end of s, for an error message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// securityMarker names the security table's section of docs/acceptance.md.
const securityMarker = "security table"

// beginMarker and endMarker delimit a section of docs/acceptance.md that a
// test rewrites by itself.
func beginMarker(name string) string { return "<!-- begin " + name + " -->\n" }
func endMarker(name string) string   { return "<!-- end " + name + " -->\n" }

// writeDocSection replaces the named section of docs/acceptance.md with
// text, appending the section when the page has none yet; the rest of the
// page is kept.
func writeDocSection(t *testing.T, name, text string) {
	t.Helper()
	doc := filepath.Join(repoRoot(), "docs", "acceptance.md")
	old, err := os.ReadFile(doc)
	if err != nil {
		t.Errorf("read %s: %v", doc, err)
		return
	}
	if err := os.WriteFile(doc, []byte(replaceSection(string(old), name, text)), 0o644); err != nil {
		t.Errorf("write %s: %v", doc, err)
	}
}

// replaceSection returns page with the named section's body set to text.
func replaceSection(page, name, text string) string {
	begin, end := beginMarker(name), endMarker(name)
	section := begin + text + end
	i := strings.Index(page, begin)
	j := strings.Index(page, end)
	if i < 0 || j < i {
		return strings.TrimRight(page, "\n") + "\n\n" + section
	}
	return page[:i] + section + page[j+len(end):]
}

func TestReplaceSectionKeepsTheRestOfThePage(t *testing.T) {
	for _, tc := range []struct{ name, page, want string }{
		{"a page without the section gains it at its end", "intro\n", "intro\n\n<!-- begin s -->\nnew\n<!-- end s -->\n"},
		{"a page with the section has only its body replaced", "a\n<!-- begin s -->\nold\n<!-- end s -->\nb\n", "a\n<!-- begin s -->\nnew\n<!-- end s -->\nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := replaceSection(tc.page, "s", "new\n"); got != tc.want {
				t.Errorf("replaceSection(%q) = %q, want %q", tc.page, got, tc.want)
			}
		})
	}
}

func TestFaultPageKeepsTheSecurityTable(t *testing.T) {
	old := "old intro\nold table\n\n" + beginMarker(securityMarker) + "rows\n" + endMarker(securityMarker)
	got := faultPage(old, "new table\n")
	if !strings.HasPrefix(got, docIntro+"new table\n") || !strings.Contains(got, beginMarker(securityMarker)+"rows\n") || strings.Contains(got, "old table") {
		t.Errorf("faultPage = %q: want the new intro and table, then the security section kept", got)
	}
}
