package observe

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pynenc/piceli/internal/access"
	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/localpath"
	"github.com/pynenc/piceli/refusal"
)

// ForwardsSchema versions a user's forward preferences file.
const ForwardsSchema = "piceli.forwards/v1"

// MinLocalPort is the lowest local port a saved forward may use: ports
// below it are privileged.
const MinLocalPort = 1024

// Forward is one saved port-forward preference. It is not secret. It is
// scoped to the cluster (by kube-system UID), the context and the
// namespace it was saved for, and runs nowhere else.
type Forward struct {
	Name       string `json:"name"`
	Namespace  string `json:"namespace"`
	Target     string `json:"target"` // service/x, deployment/x or pod/x
	Address    string `json:"address"`
	LocalPort  int    `json:"localPort"`
	RemotePort int    `json:"remotePort"`
	ClusterUID string `json:"clusterUID"`
	Context    string `json:"context"`
	Server     string `json:"server,omitempty"` // for people; the UID decides
}

// Prefs are the forward preferences kept in one directory, one owner-only
// file per user (<Dir>/<user>.json, mode 0600, in a 0700 directory).
type Prefs struct {
	Dir string
}

// DefaultPrefsDir is where preferences live unless told otherwise: the
// user configuration directory's piceli/forwards.
func DefaultPrefsDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the configuration directory: %w", err)
	}
	return filepath.Join(d, "piceli", "forwards"), nil
}

var (
	userName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	dnsName  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// Validate checks a forward's own fields (not its scope) before it is
// saved or run; every problem is a refusal (refusal.Is) naming the key.
func (f Forward) Validate() error {
	var errs []error
	if !dnsName.MatchString(f.Name) || len(f.Name) > 63 {
		errs = append(errs, fmt.Errorf("name %q: want a DNS-1123 label", f.Name))
	}
	if !dnsName.MatchString(f.Namespace) || len(f.Namespace) > 63 {
		errs = append(errs, fmt.Errorf("namespace %q: want a DNS-1123 label", f.Namespace))
	}
	if _, _, err := parseTarget(f.Target); err != nil {
		errs = append(errs, err)
	}
	if err := access.CheckLoopback(f.Address); err != nil {
		errs = append(errs, fmt.Errorf("address: %w", err))
	}
	if f.LocalPort < MinLocalPort || f.LocalPort > 65535 {
		errs = append(errs, fmt.Errorf("local port %d refused: want %d to 65535 (no privileged port)", f.LocalPort, MinLocalPort))
	}
	if f.RemotePort < 1 || f.RemotePort > 65535 {
		errs = append(errs, fmt.Errorf("remote port %d: want 1 to 65535", f.RemotePort))
	}
	if len(errs) > 0 {
		return refusal.Errorf("forward %q: %w", f.Name, errors.Join(errs...))
	}
	return nil
}

// parseTarget splits service/x, deployment/x or pod/x.
func parseTarget(t string) (access.Kind, string, error) {
	kind, name, ok := strings.Cut(t, "/")
	kinds := map[string]access.Kind{"service": access.KindService, "svc": access.KindService, "deployment": access.KindDeployment, "deploy": access.KindDeployment, "pod": access.KindPod}
	k, known := kinds[strings.ToLower(kind)]
	if !ok || !known || !dnsName.MatchString(name) {
		return "", "", fmt.Errorf("target %q: want service/NAME, deployment/NAME or pod/NAME", t)
	}
	return k, name, nil
}

func (p Prefs) file(user string) (string, error) {
	if !userName.MatchString(user) {
		return "", badInput("user %q: want lowercase letters, digits, '.', '_' or '-' (at most 63)", user)
	}
	if p.Dir == "" {
		return "", badInput("no preferences directory")
	}
	path, err := localpath.Join(p.Dir, user+".json")
	if err != nil {
		return "", badInput("user %q: %v", user, err)
	}
	return path, nil
}

type prefsFile struct {
	Schema   string    `json:"schema"`
	User     string    `json:"user"`
	Forwards []Forward `json:"forwards"`
}

// List returns user's saved forwards, sorted by name; none when the user
// has no file. A file readable by others than its owner is refused.
func (p Prefs) List(user string) ([]Forward, error) {
	path, err := p.file(user)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read forwards of %s: %w", user, err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, badInput("forward preferences %s have mode %v; they must be owner-only (chmod 600)", path, info.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read forwards of %s: %w", user, err)
	}
	var pf prefsFile
	if err := json.Unmarshal(data, &pf); err != nil || pf.Schema != ForwardsSchema {
		return nil, badInput("forward preferences %s: not a %s document", path, ForwardsSchema)
	}
	return pf.Forwards, nil
}

// Get returns user's forward named name.
func (p Prefs) Get(user, name string) (Forward, error) {
	fs, err := p.List(user)
	if err != nil {
		return Forward{}, err
	}
	for _, f := range fs {
		if f.Name == name {
			return f, nil
		}
	}
	return Forward{}, badInput("user %s has no saved forward %q", user, name)
}

// Save validates f (scoped: its ClusterUID and Context set, see
// Forwarder.Scope) and stores it for user, replacing one of the same
// name, atomically and owner-only.
func (p Prefs) Save(user string, f Forward) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f.ClusterUID == "" || f.Context == "" {
		return badInput("forward %q: the cluster identity and context it is for are required", f.Name)
	}
	fs, err := p.List(user)
	if err != nil {
		return err
	}
	fs = slices.DeleteFunc(fs, func(x Forward) bool { return x.Name == f.Name })
	fs = append(fs, f)
	slices.SortFunc(fs, func(a, b Forward) int { return strings.Compare(a.Name, b.Name) })
	return p.write(user, fs)
}

// Delete removes user's forward named name; an unknown name is an
// refusal (refusal.Is).
func (p Prefs) Delete(user, name string) error {
	fs, err := p.List(user)
	if err != nil {
		return err
	}
	n := len(fs)
	fs = slices.DeleteFunc(fs, func(x Forward) bool { return x.Name == name })
	if len(fs) == n {
		return badInput("user %s has no saved forward %q", user, name)
	}
	return p.write(user, fs)
}

func (p Prefs) write(user string, fs []Forward) error {
	path, err := p.file(user)
	if err != nil {
		return err
	}
	if fs == nil {
		fs = []Forward{}
	}
	data, err := json.MarshalIndent(prefsFile{Schema: ForwardsSchema, User: user, Forwards: fs}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.MkdirPrivate(p.Dir); err != nil {
		return fmt.Errorf("save forwards of %s: %w", user, err)
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save forwards of %s: %w", user, err)
	}
	return nil
}
