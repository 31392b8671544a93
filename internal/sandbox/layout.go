package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// DefaultName is the sandbox started when no name is given.
const DefaultName = "piceli"

// DirName is the directory, at the repository root or the working directory,
// that holds sandbox state: kubeconfig files and kwokctl's workdir.
const DirName = ".piceli-sandbox"

var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$`)

// Layout names every file of one sandbox. Its zero value is not usable: build
// it with NewLayout.
type Layout struct {
	Name string // sandbox name, a DNS label
	Dir  string // the .piceli-sandbox directory
}

// NewLayout validates name and returns the layout of that sandbox under dir.
func NewLayout(dir, name string) (Layout, error) {
	if !nameRE.MatchString(name) {
		return Layout{}, fmt.Errorf("sandbox name %q: want lowercase letters, digits and '-', at most 32 characters", name)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Layout{}, fmt.Errorf("sandbox directory %q: %w", dir, err)
	}
	return Layout{Name: name, Dir: abs}, nil
}

// DefaultDir picks the sandbox directory: $PICELI_SANDBOX_DIR when set, else
// the nearest existing .piceli-sandbox from the working directory upwards,
// else .piceli-sandbox at the repository root (the directory holding
// tools/sandbox), else .piceli-sandbox in the working directory.
func DefaultDir() (string, error) {
	if dir := os.Getenv("PICELI_SANDBOX_DIR"); dir != "" {
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("locate sandbox directory: %w", err)
	}
	if root, ok := findUp(wd, DirName); ok {
		return filepath.Join(root, DirName), nil
	}
	if root, ok := findUp(wd, filepath.Join("tools", "sandbox")); ok {
		return filepath.Join(root, DirName), nil
	}
	return filepath.Join(wd, DirName), nil
}

// Kubeconfig is the kubeconfig file written for the sandbox:
// sandbox.kubeconfig for DefaultName, sandbox-<name>.kubeconfig otherwise.
func (l Layout) Kubeconfig() string {
	if l.Name == DefaultName {
		return filepath.Join(l.Dir, "sandbox.kubeconfig")
	}
	return filepath.Join(l.Dir, "sandbox-"+l.Name+".kubeconfig")
}

// Context is the kubeconfig context of the sandbox, kwok-<name>.
func (l Layout) Context() string { return "kwok-" + l.Name }

// Workdir is KWOK_WORKDIR, shared by every sandbox in Dir.
func (l Layout) Workdir() string { return filepath.Join(l.Dir, "kwok") }

// ClusterDir is where kwokctl keeps this sandbox's pki, pids, logs and
// binaries.
func (l Layout) ClusterDir() string { return filepath.Join(l.Workdir(), "clusters", l.Name) }

// Config is the kwokctl configuration file written by Up.
func (l Layout) Config() string { return filepath.Join(l.Workdir(), l.Name+".kwokctl.yaml") }

// Log is kwokctl's own output from the last up or down.
func (l Layout) Log() string { return filepath.Join(l.Workdir(), l.Name+".kwokctl.log") }

// kwokKubeconfig is the kubeconfig kwokctl writes for its own use.
func (l Layout) kwokKubeconfig() string { return filepath.Join(l.ClusterDir(), "kubeconfig.yaml") }
