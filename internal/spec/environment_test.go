package spec

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/statedir"
)

// withEnvs is good with two environments; bad rows edit one line of it.
// Line numbers matter: good has 23 lines.
var withEnvs = good + strings.Join([]string{
	`[environments.staging]`,                   // 23
	`target = { namespace = "hello-staging" }`, // 24
	`values = { greeting = "hi staging" }`,     // 25
	``,                                         // 26
	`[environments.prod.target]`,               // 27
	`kubeconfig = "prod.kubeconfig"`,           // 28
	`context = "prod"`,                         // 29
	`[environments.prod.release]`,              // 30
	`prune = true`,                             // 31
	`ready_timeout = "10m"`,                    // 32
	`[environments.prod.images]`,               // 33
	`web = "docker.io/library/nginx@` + otherDigest + `"`, // 34
	``,
}, "\n")

const otherDigest = "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

func TestParseEnvResolvesAnOrdinarySpec(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "release.toml")
	base, err := Parse(path, []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env  string
		edit func(s *Spec)
	}{
		{"staging", func(s *Spec) {
			s.Target.Namespace = "hello-staging"
			s.Values = map[string]string{"greeting": "hi staging"}
		}},
		{"prod", func(s *Spec) {
			s.Target.Kubeconfig, s.Target.Context = filepath.Join(dir, "prod.kubeconfig"), "prod"
			s.Release.Prune, s.Release.ReadyTimeout = true, 600_000_000_000
			s.Images = map[string]string{"web": "docker.io/library/nginx@" + otherDigest}
		}},
	}
	for _, tt := range tests {
		t.Run("environment "+tt.env+" is the top level with its overrides", func(t *testing.T) {
			got, err := ParseEnv(path, []byte(withEnvs), tt.env)
			if err != nil {
				t.Fatalf("ParseEnv(%s) error: %v", tt.env, err)
			}
			want := *base
			want.Values, want.Images = map[string]string{"greeting": "hi"}, map[string]string{"web": base.Images["web"]}
			tt.edit(&want)
			want.Release.StateDir = statedir.Environment(base.Release.StateDir, tt.env)
			want.Environment, want.Environments = tt.env, []string{"prod", "staging"}
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("ParseEnv(%s) mismatch (-want +got):\n%s", tt.env, diff)
			}
		})
	}
}

func TestParseEnvGivesEachEnvironmentItsOwnStateDirectory(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	staging, err := ParseEnv("release.toml", []byte(withEnvs), "staging")
	if err != nil {
		t.Fatal(err)
	}
	prod, err := ParseEnv("release.toml", []byte(withEnvs), "prod")
	if err != nil {
		t.Fatal(err)
	}
	if staging.Release.StateDir == prod.Release.StateDir {
		t.Errorf("staging and prod share the state directory %s", prod.Release.StateDir)
	}
	if got := filepath.Base(prod.Release.StateDir); got != DefaultStateDir+".env-prod" {
		t.Errorf("prod's state directory is %s, want %s.env-prod beside the default", got, DefaultStateDir)
	}
}

func TestParseEnvRefuses(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct {
		name     string
		old, new string // replace old by new in withEnvs
		env      string
		want     []string
	}{
		{"no environment chosen lists the declared ones", "", "", "",
			[]string{`release.toml:23: environments: the spec declares environments prod, staging: choose one`}},
		{"an unknown environment lists the declared ones", "", "", "qa",
			[]string{`release.toml:23: environments: environment "qa" is not declared; the environments are prod, staging`}},
		{"an environment name that is not a DNS-1123 label names its line", `[environments.staging]`, `[environments.Staging_1]`, "prod",
			[]string{`release.toml:23: environments.Staging_1: "Staging_1" must be a DNS-1123 label`}},
		{"an unknown key in an environment lists the keys it may set", `prune = true`, `prun = true`, "prod",
			[]string{`release.toml:31: environments.prod.release.prun: unknown key (known keys: state_dir, state, state_namespace`}},
		{"an environment may not rename the release", `prune = true`, `name = "other"`, "prod",
			[]string{`release.toml:31: environments.prod.release.name: unknown key`}},
		{"an unknown table in an environment is refused", `[environments.prod.images]`, "[environments.prod.replicas]\nweb = 3\n[environments.prod.images]", "prod",
			[]string{`release.toml:33: environments.prod.replicas: unknown key (known keys: target, release, values, images)`}},
		{"an override of an undeclared value names it and the declared ones", `values = { greeting = "hi staging" }`, `values = { greting = "hi staging" }`, "prod",
			[]string{`release.toml:25: environments.staging.values.greting: unknown value: [values] declares greeting`}},
		{"an override of an undeclared image names it", `[environments.prod.images]` + "\nweb", `[environments.prod.images]` + "\nwbe", "staging",
			[]string{`release.toml:34: environments.prod.images.wbe: unknown image: [images] declares web`}},
		{"a bad override is the environment's, on its line", `context = "prod"`, `context = "prod"` + "\nnamespace = \"Prod\"", "staging",
			[]string{`release.toml:30: environments.prod.target.namespace: "Prod" must be a DNS-1123 label`}},
		{"an unpinned image override is the environment's", "@" + otherDigest, ":1.27", "staging",
			[]string{`release.toml:34: environments.prod.images.web: "docker.io/library/nginx:1.27" is not pinned by digest`}},
		{"a wrong type in an environment names its key", `prune = true`, `prune = "yes"`, "prod",
			[]string{`release.toml:31: environments.prod.release.prune: wrong type: want boolean, have string`}},
		{"two environments on one target are refused", `target = { namespace = "hello-staging" }`, `target = { kubeconfig = "prod.kubeconfig", context = "prod" }`, "prod",
			[]string{`environments.staging.target: same kubeconfig, context and namespace as environments.prod`}},
		{"two environments with one state directory are refused", `prune = true`, `state_dir = ".piceli-release.env-staging"`, "prod",
			[]string{`environments.staging.release.state_dir: same state directory as environments.prod`}},
		{"a top-level problem an environment brings out names that environment", `prune = true`, `state = "local"` + "\n" + `[environments.staging.release]` + "\n" + `state = "cluster"` + "\n" + `state_signers = []`, "prod",
			[]string{`environments.staging.release.state_signers: must not be empty with state = "cluster"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(withEnvs, tt.old, tt.new, 1)
			if tt.old != "" && src == withEnvs {
				t.Fatalf("row does not change the spec: %q not found", tt.old)
			}
			_, err := ParseEnv("release.toml", []byte(src), tt.env)
			if err == nil {
				t.Fatalf("ParseEnv() = nil error, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParseEnv() error =\n%v\nwant it to contain\n%s", err, w)
				}
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("ParseEnv() error %T is not a *spec.Error", err)
			}
			var ee *EnvironmentError
			if choosing := strings.Contains(tt.want[0], "environments: "); errors.As(err, &ee) != choosing {
				t.Errorf("ParseEnv() error is an *EnvironmentError: %v, want %v", !choosing, choosing)
			}
		})
	}
}

func TestParseEnvRefusesAnEnvironmentForASpecWithout(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	_, err := ParseEnv("release.toml", []byte(good), "prod")
	want := `release.toml: environment "prod": the spec declares no [environments]`
	if err == nil || err.Error() != want {
		t.Errorf("ParseEnv(no environments, prod) error = %v, want %s", err, want)
	}
}

// A problem of the top level is reported once, not once per environment.
func TestParseEnvReportsATopLevelProblemOnce(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := strings.Replace(withEnvs, `name = "hello"`, `name = "Hello"`, 1)
	_, err := ParseEnv("release.toml", []byte(src), "prod")
	if err == nil || strings.Count(err.Error(), "release.name") != 1 {
		t.Errorf("ParseEnv() error =\n%v\nwant release.name reported once", err)
	}
}

// Two environments on one cluster whose shared state would be the same
// Secrets (one state_namespace) are refused.
func TestParseEnvRefusesOneSharedStateForTwo(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := strings.Replace(withEnvs, `name = "hello"`, `name = "hello"`+"\nstate = \"cluster\"\nstate_namespace = \"ops\"\nstate_signers = [\""+testSigner+"\"]", 1)
	src = strings.Replace(src, "kubeconfig = \"prod.kubeconfig\"\ncontext = \"prod\"", `namespace = "hello-prod"`, 1)
	_, err := ParseEnv("release.toml", []byte(src), "prod")
	want := `environments.staging.release.state_namespace: the shared state of environments.prod is in the same namespace of the same cluster`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ParseEnv() error = %v, want it to contain %s", err, want)
	}
	ok := strings.Replace(src, `target = { namespace = "hello-staging" }`, `target = { namespace = "hello-staging" }`+"\nrelease = { state_namespace = \"ops-staging\" }", 1)
	if _, err := ParseEnv("release.toml", []byte(ok), "prod"); err != nil {
		t.Errorf("ParseEnv() with a state namespace each = %v, want it accepted", err)
	}
}
