package spec

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// checksSpec is good with its [[checks]] replaced by body.
func checksSpec(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(good, "[[checks]]")
	if i < 0 {
		t.Fatal("good has no [[checks]]")
	}
	return good[:i] + body
}

func TestParseEveryCheckKind(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	src := checksSpec(t, strings.Join([]string{
		`[[checks]]`,
		`name = "api"`,
		`timeout = "3s"`,
		`retries = 5`,
		`backoff = "200ms"`,
		`http = { service = "api", port = 8080, path = "/healthz", method = "POST", expect_status = 204, body_contains = "ok", body_regexp = "^o.$", headers = { Accept = "text/plain" } }`,
		`[[checks]]`,
		`name = "smoke"`,
		`command = { run = ["./smoke.sh", "--quick"], dir = "tests", services = ["api"] }`,
		`[[checks]]`,
		`name = "migrate"`,
		`job = { from = "migrate" }`,
		`[[checks]]`,
		`name = "own job"`,
		`retries = 1`,
		`job = { image = "web", command = ["/bin/check"], args = ["-v"], annotations = { "sidecar.istio.io/inject" = "false" } }`,
		``,
	}, "\n"))
	s, err := Parse(filepath.Join(dir, "release.toml"), []byte(src))
	if err != nil {
		t.Fatalf("Parse() error: %v", err)
	}
	want := []Check{
		{Name: "api", Timeout: 3 * time.Second, Retries: 5, Backoff: 200 * time.Millisecond, HTTP: &HTTPCheck{
			Service: "api", Port: 8080, Path: "/healthz", ExpectStatus: 204, Method: "POST",
			Headers: map[string]string{"Accept": "text/plain"}, BodyContains: "ok", BodyRegexp: "^o.$",
		}},
		{Name: "smoke", Timeout: DefaultCommandTimeout, Backoff: DefaultBackoff, Command: &CommandCheck{
			Run: []string{"./smoke.sh", "--quick"}, Dir: filepath.Join(dir, "tests"), Services: []string{"api"},
		}},
		{Name: "migrate", Timeout: DefaultJobTimeout, Backoff: DefaultBackoff, Job: &JobCheck{From: "migrate"}},
		{Name: "own job", Timeout: DefaultJobTimeout, Retries: 1, Backoff: DefaultBackoff, Job: &JobCheck{
			Image: "docker.io/library/nginx@" + digest, Command: []string{"/bin/check"}, Args: []string{"-v"},
			Annotations: map[string]string{"sidecar.istio.io/inject": "false"},
		}},
	}
	if diff := cmp.Diff(want, s.Checks); diff != "" {
		t.Errorf("Parse() checks (-want +got):\n%s", diff)
	}
	for i, kind := range []string{CheckHTTP, CheckCommand, CheckJob, CheckJob} {
		if got := s.Checks[i].Kind(); got != kind {
			t.Errorf("Checks[%d].Kind() = %q, want %q", i, got, kind)
		}
	}
}

func TestParseCommandDefaultsToTheSpecDirectory(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	src := checksSpec(t, "[[checks]]\nname = \"c\"\ncommand = { run = [\"true\"] }\n")
	s, err := Parse(filepath.Join(dir, "release.toml"), []byte(src))
	if err != nil {
		t.Fatalf("Parse() error: %v", err)
	}
	if c := s.Checks[0].Command; c.Dir != dir || c.Services != nil {
		t.Errorf("command check = %+v, want Dir %s and every service (nil)", c, dir)
	}
}

func TestParseBadChecks(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	tests := []struct {
		name  string
		check string // the body of one [[checks]] table, from line 17 on
		want  string
	}{
		{"two kinds are refused", `http = { service = "web", port = 80 }` + "\n" + `tcp = { service = "web", port = 80 }`,
			`release.toml:16: checks[0]: check "c" sets 2 of http, tcp, command and job; set exactly one`},
		{"a bad method is refused", `http = { service = "web", port = 80, method = "get" }`,
			`release.toml:18: checks[0].http.method: check "c": "get" is not an HTTP method`},
		{"a bad regexp names its key", `http = { service = "web", port = 80, body_regexp = "(" }`,
			`release.toml:18: checks[0].http.body_regexp: check "c": error parsing regexp`},
		{"an empty body_contains is refused", `http = { service = "web", port = 80, body_contains = "" }`,
			`release.toml:18: checks[0].http.body_contains: check "c": must not be empty`},
		{"a bad header name is refused", `http = { service = "web", port = 80, headers = { "a b" = "x" } }`,
			`release.toml:18: checks[0].http.headers: check "c": "a b" is not a valid header name`},
		{"a bad header value is refused without quoting it", `http = { service = "web", port = 80, headers = { X-Token = "sec\nret" } }`,
			`release.toml:18: checks[0].http.headers.X-Token: check "c": the value of header X-Token holds characters a header cannot carry`},
		{"an unknown key of a kind names the known ones", `command = { run = ["x"], shell = true }`,
			`release.toml:18: checks[0].command.shell: unknown key (known keys: run, dir, services)`},
		{"a command without run is refused", `command = { dir = "." }`,
			`release.toml:18: checks[0].command.run: required by check "c"`},
		{"an empty program is refused", `command = { run = [""] }`,
			`release.toml:18: checks[0].command.run: check "c": the program (run[0]) must not be empty`},
		{"a bad service name is refused", `command = { run = ["x"], services = ["Web"] }`,
			`release.toml:18: checks[0].command.services[0]: "Web" must be a DNS-1123 label`},
		{"a job with from and image is refused", `job = { from = "a", image = "b" }`,
			`release.toml:18: checks[0].job: check "c" sets both from and image`},
		{"a job with neither is refused", `job = { args = ["x"] }`,
			`release.toml:18: checks[0].job: check "c" sets neither from nor image`},
		{"a copied job takes no command", `job = { from = "a", command = ["x"] }`,
			`release.toml:18: checks[0].job: check "c": command and args belong to a Job the check declares`},
		{"negative retries are refused", "retries = -1\n" + `tcp = { service = "web", port = 80 }`,
			`release.toml:18: checks[0].retries: check "c": -1 retries must be within 0-20`},
		{"a bad timeout is refused", "timeout = \"soon\"\n" + `tcp = { service = "web", port = 80 }`,
			`release.toml:18: checks[0].timeout: "soon": want a positive duration`},
		{"a timeout past the limit is refused", "timeout = \"2h\"\n" + `tcp = { service = "web", port = 80 }`,
			`release.toml:18: checks[0].timeout: check "c": 2h0m0s is longer than the limit of 1h0m0s`},
		{"a wrong type of run names the key", `command = { run = "x" }`,
			`release.toml:18: checks[0].command.run: wrong type: want array, have string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := checksSpec(t, "[[checks]]\nname = \"c\"\n"+tt.check+"\n")
			_, err := Parse("release.toml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse() error =\n%v\nwant it to contain\n%s", err, tt.want)
			}
			if err != nil && (strings.Contains(err.Error(), "sec\\nret") || strings.Contains(err.Error(), "sec\nret")) {
				t.Errorf("Parse() error quotes a header value: %v", err)
			}
		})
	}
}

func TestParseJobImageMustBePinnedWhenRequired(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := checksSpec(t, "[[checks]]\nname = \"c\"\njob = { image = \"busybox:1.36\" }\n")
	src = strings.Replace(src, `name = "hello"`, "name = \"hello\"\nrequire_pinned_images = true", 1)
	_, err := Parse("release.toml", []byte(src))
	want := `checks[0].job.image: check "c": "busybox:1.36" is not pinned by digest`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Parse() error = %v, want it to contain %q", err, want)
	}
}

func TestParseAcceptsRollbackOnFailure(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := strings.Replace(good, `name = "hello"`, "name = \"hello\"\non_failure = \"rollback\"", 1)
	s, err := Parse("release.toml", []byte(src))
	if err != nil || s.Release.OnFailure != OnFailureRollback {
		t.Fatalf("Parse() = %v, %v; want on_failure %q", s, err, OnFailureRollback)
	}
}
