package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/signer"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// good is a valid spec; bad rows edit one line of it. Line numbers matter.
var good = strings.Join([]string{
	`[target]`,                        // 1
	`kubeconfig = "hello.kubeconfig"`, // 2
	`context = "kind-hello"`,          // 3
	`namespace = "hello"`,             // 4
	``,                                // 5
	`[release]`,                       // 6
	`name = "hello"`,                  // 7
	`composition = "infra.go:Build"`,  // 8
	``,                                // 9
	`[images]`,                        // 10
	`web = "docker.io/library/nginx@` + digest + `"`, // 11
	``,                   // 12
	`[values]`,           // 13
	`greeting = "hi"`,    // 14
	``,                   // 15
	`[[checks]]`,         // 16
	`name = "home page"`, // 17
	`http = { service = "web", port = 80, path = "/" }`, // 18
	``,                                     // 19
	`[[checks]]`,                           // 20
	`name = "tcp"`,                         // 21
	`tcp = { service = "web", port = 80 }`, // 22
	``,
}, "\n")

func TestParseGood(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	s, err := Parse(filepath.Join(dir, "release.toml"), []byte(good))
	if err != nil {
		t.Fatalf("Parse(good) error: %v", err)
	}
	want := &Spec{
		Path:   filepath.Join(dir, "release.toml"),
		Dir:    dir,
		Target: Target{Kubeconfig: filepath.Join(dir, "hello.kubeconfig"), Context: "kind-hello", Namespace: "hello"},
		Release: Release{
			Name: "hello", Owner: "hello", FieldManager: "piceli-hello",
			Composition: Composition{Kind: CompositionGo, File: filepath.Join(dir, "infra.go"), Func: "Build"},
			StateDir:    filepath.Join(dir, ".piceli-release"),
			State:       StateLocal, // a spec without release.state keeps today's local state
			OnFailure:   OnFailureStop,
			Wait:        WaitReady,
		},
		Images: map[string]string{"web": "docker.io/library/nginx@" + digest},
		Values: map[string]string{"greeting": "hi"},
		Checks: []Check{
			{Name: "home page", Timeout: DefaultHTTPTimeout, Retries: DefaultNetworkRetries, Backoff: DefaultBackoff,
				HTTP: &HTTPCheck{Service: "web", Port: 80, Path: "/", ExpectStatus: 200, Method: "GET"}},
			{Name: "tcp", Timeout: DefaultTCPTimeout, Retries: DefaultNetworkRetries, Backoff: DefaultBackoff,
				TCP: &TCPCheck{Service: "web", Port: 80}},
		},
		Deploy:    Deploy{Deliver: DeliverNone},
		Telemetry: Telemetry{ExportTimeout: DefaultExportTimeout},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("Parse(good) mismatch (-want +got):\n%s", diff)
	}
}

// testSigner is a state_signers line: an ed25519 public key and a name.
const testSigner = "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo= alice@laptop"

func mustSigner(t *testing.T, line string) signer.Signer {
	t.Helper()
	s, err := signer.Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseOptionalFields(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	src := strings.Replace(good, `name = "hello"`, strings.Join([]string{
		`name = "hello"`, `owner = "team-a"`, `field_manager = "fm"`,
		`state_dir = "/var/state"`, `state = "cluster"`, `state_namespace = "ops"`, `state_signers = ["` + testSigner + `"]`, `allow_unpinned_images = true`, `prune = true`,
		`on_failure = "compensate"`, `ready_timeout = "90s"`, `wait = "none"`,
	}, "\n"), 1)
	src = strings.Replace(src, `"infra.go:Build"`, `"manifests/"`, 1)
	src = strings.Replace(src, "@"+digest, ":latest", 1)
	s, err := Parse(filepath.Join(dir, "release.toml"), []byte(src))
	if err != nil {
		t.Fatalf("Parse error: %v", err)
	}
	want := Release{
		Name: "hello", Owner: "team-a", FieldManager: "fm", StateDir: "/var/state", State: StateCluster, StateNamespace: "ops", AllowUnpinnedImages: true, Prune: true,
		OnFailure: OnFailureCompensate, ReadyTimeout: 90 * time.Second, Wait: WaitNone,
		Composition:  Composition{Kind: CompositionFiles, File: filepath.Join(dir, "manifests")},
		StateSigners: []signer.Signer{mustSigner(t, testSigner)},
	}
	if diff := cmp.Diff(want, s.Release); diff != "" {
		t.Errorf("Parse release mismatch (-want +got):\n%s", diff)
	}
}

func TestParseBad(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	homeConfig := filepath.Join(home, ".kube", "config")
	tests := []struct {
		name     string
		old, new string // replace old by new in good
		want     []string
	}{
		{"an unknown key names its line and table", `context = "kind-hello"`, `context = "kind-hello"` + "\nkubeconfg = \"x\"",
			[]string{`release.toml:4: target.kubeconfg: unknown key (known keys: kubeconfig, context, namespace, namespaces)`}},
		{"an unknown table is reported once", `[values]`, "[extra]\na = 1\n[values]",
			[]string{`release.toml:13: extra: unknown key`}},
		{"an unknown key in an inline table of the second check names that check", `tcp = { service = "web", port = 80 }`, `tcp = { service = "web", port = 80, timeout = 3 }`,
			[]string{`release.toml:22: checks[1].tcp.timeout: unknown key (known keys: service, port)`}},
		{"an unknown state mode names the key and the choices", `name = "hello"`, `name = "hello"` + "\nstate = \"s3\"",
			[]string{`release.toml:8: release.state: "s3": want "cluster" or "local"`}},
		{"a state namespace without cluster state is refused", `name = "hello"`, `name = "hello"` + "\nstate_namespace = \"ops\"",
			[]string{`release.toml:8: release.state_namespace: is only used with release.state = "cluster"`}},
		{"a state namespace must be a DNS-1123 label", `name = "hello"`, `name = "hello"` + "\nstate = \"cluster\"\nstate_namespace = \"Ops\"\nstate_signers = [\"" + testSigner + "\"]",
			[]string{`release.toml:9: release.state_namespace: "Ops" must be a DNS-1123 label`}},
		{"cluster state without state_signers says how to get a key", `name = "hello"`, `name = "hello"` + "\nstate = \"cluster\"",
			[]string{`release.toml:8: release.state_signers: required with state = "cluster": list the public keys allowed to sign the shared state; run "piceli state key" on each machine`}},
		{"cluster state with no signers listed is refused", `name = "hello"`, `name = "hello"` + "\nstate = \"cluster\"\nstate_signers = []",
			[]string{`release.toml:9: release.state_signers: must not be empty with state = "cluster"`}},
		{"a signer that is not an ed25519 key names its index", `name = "hello"`, `name = "hello"` + "\nstate = \"cluster\"\nstate_signers = [\"" + testSigner + "\", \"rsa:AAAA bob\"]",
			[]string{`release.toml:9: release.state_signers[1]: the key must start with "ed25519:" ("piceli state key" prints this machine's line)`}},
		{"a signer without a name is refused", `name = "hello"`, `name = "hello"` + "\nstate = \"cluster\"\nstate_signers = [\"" + strings.Fields(testSigner)[0] + "\"]",
			[]string{`release.toml:9: release.state_signers[0]: no name after the key`}},
		{"a signer listed twice is refused", `name = "hello"`, `name = "hello"` + "\nstate = \"cluster\"\nstate_signers = [\"" + testSigner + "\", \"" + testSigner + " again\"]",
			[]string{`release.toml:9: release.state_signers[1]: the key of "alice@laptop again" is listed twice`}},
		{"state_signers that are not an array are refused", `name = "hello"`, `name = "hello"` + "\nstate = \"cluster\"\nstate_signers = \"" + testSigner + "\"",
			[]string{`release.toml:9: release.state_signers: wrong type: want array, have string`}},
		{"a missing context names the target table", `context = "kind-hello"`, ``,
			[]string{`release.toml:1: target.context: required; name a context`}},
		{"an omitted kubeconfig is refused", `kubeconfig = "hello.kubeconfig"`, ``,
			[]string{`release.toml:1: target.kubeconfig: required; name a kubeconfig file: piceli never uses $KUBECONFIG or ~/.kube/config`}},
		{"an empty kubeconfig is refused", `"hello.kubeconfig"`, `""`,
			[]string{`release.toml:2: target.kubeconfig: must not be empty`}},
		{"a ~ kubeconfig is refused", `"hello.kubeconfig"`, `"~/.kube/config"`,
			[]string{`release.toml:2: target.kubeconfig: "~/.kube/config": ~ is not expanded`}},
		{"the home kubeconfig is refused", `"hello.kubeconfig"`, `"` + homeConfig + `"`,
			[]string{`release.toml:2: target.kubeconfig: ` + homeConfig + ` is the default kubeconfig: piceli never uses it`}},
		{"an environment variable kubeconfig is refused", `"hello.kubeconfig"`, `"$KUBECONFIG"`,
			[]string{`release.toml:2: target.kubeconfig: "$KUBECONFIG": environment variables are not expanded`}},
		{"a missing target table names the file", "[target]\nkubeconfig = \"hello.kubeconfig\"\ncontext = \"kind-hello\"\nnamespace = \"hello\"\n", "",
			[]string{`release.toml: target: missing table [target]`}},
		{"a bad namespace is refused", `namespace = "hello"`, `namespace = "Hello_"`,
			[]string{`release.toml:4: target.namespace: "Hello_" must be a DNS-1123 label`}},
		{"a non-pinned image names its key", "@" + digest, ":1.27",
			[]string{`release.toml:11: images.web: "docker.io/library/nginx:1.27" is not pinned by digest`}},
		{"an uppercase digest is not pinned", digest, strings.ToUpper(digest),
			[]string{`release.toml:11: images.web: `}},
		{"a bad release name names its line", `name = "hello"`, `name = "Hello World"`,
			[]string{`release.toml:7: release.name: "Hello World" must be a DNS-1123 label`}},
		{"a Go file without a function is refused", `"infra.go:Build"`, `"infra.go"`,
			[]string{`release.toml:8: release.composition: "infra.go" names no function; write it as "infra.go:Build"`}},
		{"a missing composition is refused", `composition = "infra.go:Build"`, ``,
			[]string{`release.toml:6: release.composition: required`}},
		{"a wrong type names the key and both types", `namespace = "hello"`, `namespace = 3`,
			[]string{`release.toml:4: target.namespace: wrong type: want string, have integer`}},
		{"a wrong type in the second check names that check", `tcp = { service = "web", port = 80 }`, `tcp = { service = "web", port = "80" }`,
			[]string{`release.toml:22: checks[1].tcp.port: wrong type: want integer, have string`}},
		{"malformed TOML names the line", `name = "hello"`, `name = "hello`,
			[]string{`release.toml:7: invalid TOML: `}},
		{"a check without a kind is refused", `http = { service = "web", port = 80, path = "/" }`, ``,
			[]string{`release.toml:16: checks[0]: check "home page" sets 0 of http, tcp, command and job; set exactly one`}},
		{"a check port out of range names the check", `port = 80, path`, `port = 0, path`,
			[]string{`release.toml:18: checks[0].http.port: check "home page": port 0 must be within 1-65535`}},
		{"a check path without a slash is refused", `path = "/"`, `path = "health"`,
			[]string{`release.toml:18: checks[0].http.path: check "home page": path "health" must start with /`}},
		{"a duplicate check name is refused", `name = "tcp"`, `name = "home page"`,
			[]string{`release.toml:21: checks[1].name: check "home page" is already declared by checks[0]`}},
		{"a check status out of range is refused", `path = "/" }`, `path = "/", expect_status = 700 }`,
			[]string{`release.toml:18: checks[0].http.expect_status: check "home page": status 700 must be within 100-599`}},
		{"a bad extra namespace names its index", `namespace = "hello"`, `namespace = "hello"` + "\nnamespaces = [\"jobs\", \"Jobs\"]",
			[]string{`release.toml:5: target.namespaces[1]: "Jobs" must be a DNS-1123 label`}},
		{"an extra namespace listed twice is refused", `namespace = "hello"`, `namespace = "hello"` + "\nnamespaces = [\"jobs\", \"jobs\"]",
			[]string{`release.toml:5: target.namespaces[1]: "jobs" is listed twice`}},
		{"an empty extra namespace is refused", `namespace = "hello"`, `namespace = "hello"` + "\nnamespaces = [\"\"]",
			[]string{`release.toml:5: target.namespaces[0]: must not be empty`}},
		{"namespaces that are not an array are refused", `namespace = "hello"`, `namespace = "hello"` + "\nnamespaces = \"jobs\"",
			[]string{`release.toml:5: target.namespaces: wrong type: want array, have string`}},
		{"requiring and allowing unpinned images contradict", `name = "hello"`, `name = "hello"` + "\nallow_unpinned_images = true\nrequire_pinned_images = true",
			[]string{`release.toml:9: release.require_pinned_images: contradicts release.allow_unpinned_images = true`}},
		{"a wait policy other than ready or none names the key and line", `name = "hello"`, `name = "hello"` + "\nwait = \"false\"",
			[]string{`release.toml:8: release.wait: "false": want "ready" or "none"`}},
		{"a wait policy that is not a string is a type error", `name = "hello"`, `name = "hello"` + "\nwait = false",
			[]string{`release.toml:8: release.wait: wrong type: want string, have boolean`}},
		{"an empty wait policy is refused", `name = "hello"`, `name = "hello"` + "\nwait = \"\"",
			[]string{`release.toml:8: release.wait: must not be empty; omit it for the default "ready"`}},
		{"several errors are all reported", `name = "hello"`, `name = "Hello"` + "\nowner = \"\"",
			[]string{`release.toml:7: release.name:`, `release.toml:8: release.owner: must not be empty`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(good, tt.old, tt.new, 1)
			if src == good {
				t.Fatalf("row does not change the spec: %q not found", tt.old)
			}
			_, err := Parse("release.toml", []byte(src))
			if err == nil {
				t.Fatalf("Parse() = nil error, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse() error =\n%v\nwant it to contain\n%s", err, w)
				}
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("Parse() error %T is not a *spec.Error", err)
			}
		})
	}
}

func TestLoadNamesTheFileAsGiven(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "release.toml")
	src := strings.Replace(good, `[target]`, "[target]\nkubeconfg = 1", 1)
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + ":2: target.kubeconfg: unknown key"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Load() error = %v, want prefix %q", err, want)
	}
}

func TestLocatorFindsKeys(t *testing.T) {
	src := strings.Join([]string{
		`a = """`, `[fake]`, `x = 1`, `"""`, // 1-4: a multi-line string hides its content
		`[t]`,              // 5
		`"quoted.key" = 1`, // 6
		`dotted.key = { in = { deep = "}" }, after = [1, {z = 2}] }`, // 7
		`[[arr]]`, `v = 1`, `[[arr]]`, `v = 2`, // 8-11
		`[arr.sub]`, `w = 3`, // 12-13
	}, "\n")
	l := locate(src)
	for key, want := range map[string]int{
		"a": 1, "fake": 0, "t": 5, "t.quoted.key": 6, "t.dotted.key.in.deep": 7,
		"t.dotted.key.after": 7, "arr[0].v": 9, "arr[1].v": 11, "arr[1].sub.w": 13, "arr[1].nope": 10,
	} {
		if got := l.Line(key); got != want {
			t.Errorf("line(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestParseTableGivenAsString(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := `values = "x"` + "\n" + strings.Replace(good, "[values]\ngreeting = \"hi\"", "", 1)
	_, err := Parse("release.toml", []byte(src))
	want := `release.toml:1: values: wrong type: want table, have string`
	if err == nil || err.Error() != want {
		t.Errorf("Parse() error = %v, want %s", err, want)
	}
}

func TestParseRefusesBadFailurePolicyAndTimeout(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := strings.Replace(good, `name = "hello"`, "name = \"hello\"\non_failure = \"retry\"\nready_timeout = \"soon\"", 1)
	_, err := Parse("release.toml", []byte(src))
	for _, want := range []string{`release.on_failure: "retry": want "stop", "compensate" or "rollback"`, `release.ready_timeout: "soon": want a duration between 1s and 24h`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse() error = %v, want it to contain %q", err, want)
		}
	}
}

// A readiness wait out of range is refused by name stating the range,
// one too long to parse among them.
func TestParseRefusesAnAbsurdReadyTimeout(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	rule := `: want a duration between 1s and 24h (the longest readiness wait of one wave)`
	for v, want := range map[string]string{
		"876000h":     `release.toml:8: release.ready_timeout: "876000h"` + rule,
		"9999999999h": `release.toml:8: release.ready_timeout: "9999999999h"` + rule,
		"10ms":        `release.toml:8: release.ready_timeout: "10ms"` + rule,
		"24h":         "",
		"1s":          "",
	} {
		src := strings.Replace(good, `name = "hello"`, "name = \"hello\"\nready_timeout = \""+v+"\"", 1)
		_, err := Parse("release.toml", []byte(src))
		if want == "" {
			if err != nil {
				t.Errorf("ready_timeout %q: Parse() = %v, want it accepted", v, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ready_timeout %q: Parse() error = %v, want %s", v, err, want)
		}
	}
}
