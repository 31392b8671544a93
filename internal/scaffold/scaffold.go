package scaffold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/pynenc/piceli/internal/signer"
)

// PiceliModule is the module path a scaffolded project requires.
const PiceliModule = "github.com/pynenc/piceli"

// Options describes the project to write. Name is required; zero values of
// the other fields pick the defaults their comments give.
type Options struct {
	Name       string // release and app name, a DNS-1123 label
	Module     string // module path; "" means "example.com/" + Name
	Namespace  string // target namespace; "" means Name
	Kubeconfig string // kubeconfig file for release.toml; "" writes a placeholder to edit
	Context    string // context in that file; "" writes a placeholder to edit
	// PiceliSource is a local Piceli checkout the new module reaches through a
	// replace directive. "" requires PiceliVersion from the module proxy.
	PiceliSource  string
	PiceliVersion string // version to require; "" means v0.0.0 (only with PiceliSource)
	// StateSigner is the state_signers line of the machine that runs init
	// ("ed25519:<base64> NAME"), written into release.toml so that this
	// machine may write the release's shared state. Required.
	StateSigner string
}

// Files are the files Write creates, relative to the project directory.
var Files = []string{"go.mod", "infra.go", "release.toml", ".gitignore"}

// ErrExists is returned when the target directory already holds a file
// Write would create; nothing is written then.
var ErrExists = errors.New("file already exists")

// Write creates the project files in dir (created if missing). It refuses,
// writing nothing, when any of them already exists.
func Write(dir string, opts Options) error {
	opts, err := withDefaults(opts)
	if err != nil {
		return err
	}
	if err := Check(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("init %s: %w", dir, err)
	}
	for _, f := range Files {
		if err := writeTemplate(filepath.Join(dir, f), templates[f], opts); err != nil {
			return fmt.Errorf("init %s: %w", dir, err)
		}
	}
	return nil
}

// Check refuses, matching ErrExists, a directory that already holds a
// file Write would create: Write would refuse it too.
func Check(dir string) error {
	for _, f := range Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return fmt.Errorf("init %s: %s: %w", dir, f, ErrExists)
		}
	}
	return nil
}

func withDefaults(o Options) (Options, error) {
	if errs := validation.IsDNS1123Label(o.Name); len(errs) > 0 {
		return o, fmt.Errorf("project name %q: %s", o.Name, errs[0])
	}
	if _, err := signer.Parse(o.StateSigner); err != nil {
		return o, fmt.Errorf("state signer %q: %w", o.StateSigner, err)
	}
	if o.PiceliSource == "" && o.PiceliVersion == "" {
		return o, errors.New("no Piceli source directory and no Piceli version to require: pass a source directory")
	}
	def := func(v *string, d string) {
		if *v == "" {
			*v = d
		}
	}
	def(&o.Module, "example.com/"+o.Name)
	def(&o.Namespace, o.Name)
	def(&o.PiceliVersion, "v0.0.0")
	return o, nil
}

func writeTemplate(path, text string, opts Options) error {
	var buf bytes.Buffer
	if err := template.Must(template.New(filepath.Base(path)).Parse(text)).Execute(&buf, opts); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Tidy runs `go mod tidy` in dir so the module has a go.sum and builds. It
// reaches the Go module proxy for Piceli's dependencies when they are not in
// the module cache yet. The go command's output is returned with any error.
func Tidy(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "mod", "tidy")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go mod tidy in %s: %w\n%s", dir, err, out)
	}
	return nil
}

// PiceliModule is the module path the scaffolded go.mod requires.
func (Options) PiceliModule() string { return PiceliModule }

// GoPackage is the Go package name of infra.go: Name without dashes.
func (o Options) GoPackage() string {
	return string(bytes.ReplaceAll([]byte(o.Name), []byte("-"), nil))
}

// StateSignerTOML is StateSigner as a TOML basic string, quotes included.
// signer.Parse has refused control characters and invalid UTF-8, so only
// a quote and a backslash need escaping.
func (o Options) StateSignerTOML() string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(o.StateSigner) + `"`
}

// NginxDigest pins the example image by digest, as release.toml requires.
func (Options) NginxDigest() string { return nginxDigest }

// nginxDigest is a placeholder digest in the right form. The sandbox never
// pulls images (its nodes are simulated); for a real cluster, replace it with
// the digest of the image you deploy.
const nginxDigest = "4c0fdaa8b6341bfdeca5f18f7837462c80cff90527ee35ef185571e1c327beac"
