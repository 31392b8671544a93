package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pynenc/piceli/refusal"
)

// The targets of an import.
const (
	TargetContainerd    = "containerd"
	TargetDocker        = "docker"
	TargetSSHContainerd = "ssh-containerd"
	TargetRegistry      = "registry"
)

// Defaults of ContainerdOptions.
const (
	DefaultContainerdAddress   = "/run/containerd/containerd.sock"
	DefaultContainerdNamespace = "k8s.io"
)

// ImportOptions say where an import goes and what it may run. Target is
// required; for the zero value of every other field, see its comment.
type ImportOptions struct {
	Target string   // TargetContainerd, TargetDocker, TargetSSHContainerd or TargetRegistry
	Images []string // names of images in the layout; empty means all
	// Grants are the external tools the import may run; each target needs
	// exactly its own (containerd: ctr; docker: docker; ssh-containerd: ssh;
	// registry: none). Without them nothing runs.
	Grants     []Grant
	Containerd ContainerdOptions
	SSH        SSHOptions
	Registry   RegistryOptions
	// ReceiptDir is where the receipt is written; empty means a "receipts"
	// directory beside the layout.
	ReceiptDir string
	// Log receives the tools' output and one line per step; nil discards.
	Log io.Writer
}

// ContainerdOptions address a containerd, local or (over ssh) remote.
type ContainerdOptions struct {
	Address   string // its socket; empty means DefaultContainerdAddress
	Namespace string // empty means DefaultContainerdNamespace, the kubelet's
}

// SSHOptions reach a node's containerd over ssh. Host is required.
type SSHOptions struct {
	Host       string   // user@host
	Port       int      // zero means ssh's default
	Identity   string   // a private key file, passed as -i; its content is never read
	KnownHosts string   // a known_hosts file; host keys are always checked
	Options    []string // more -o options, such as "ConnectTimeout=5"
	Sudo       bool     // run the remote ctr through sudo -n
	Ctr        string   // the remote ctr; empty means "ctr"
}

// RegistryOptions name a registry to push to: Address, or ViaForward with
// the kubeconfig, context and namespace that reach it.
type RegistryOptions struct {
	Address    string // host:port
	Insecure   bool   // plain HTTP to a registry that is not on loopback
	Username   string
	Password   string // never written anywhere
	ViaForward string // "service/NAME:PORT", "deployment/NAME:PORT" or "pod/NAME:PORT" (access.ParseTarget), port-forwarded to 127.0.0.1
	Kubeconfig string
	Context    string
	Namespace  string
	AllowExec  bool
}

func refusedf(format string, args ...any) error { return refusal.Errorf(format, args...) }

// Import delivers the images of the OCI layout at dir to opts.Target. It
// checks the options and grants and verifies every blob first, and refuses
// (refusal.Is, nothing run; a missing grant is a *GrantError) when any is wrong. Stream
// targets run the granted tool with the image streamed into its standard
// input as an OCI archive, read straight from the layout: no archive is
// written to disk. A registry push sends only the blobs the registry lacks.
// When ctx ends the tool's whole process group is stopped. Once started,
// every import writes a receipt, also when it fails or is interrupted.
func Import(ctx context.Context, dir string, opts ImportOptions) (*Receipt, error) {
	d, err := newDelivery(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	return d.run(ctx)
}

// delivery is one import, checked and ready to run.
type delivery struct {
	dir    string
	opts   ImportOptions
	imgs   []chosen
	tools  map[string]Tool
	rec    *Receipt
	red    *redactor
	log    io.Writer
	runner func(context.Context) error
}

func newDelivery(ctx context.Context, dir string, opts ImportOptions) (*delivery, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	d := &delivery{dir: abs, opts: opts, log: opts.Log, red: newRedactor(opts.Registry.Password)}
	if d.log == nil {
		d.log = io.Discard
	}
	d.rec = &Receipt{Schema: ReceiptSchema, Layout: abs}
	needs, err := d.plan()
	if err != nil {
		return nil, err
	}
	if d.tools, err = resolveGrants(ctx, opts.Target, needs, opts.Grants); err != nil {
		var ge *GrantError
		if errors.As(err, &ge) {
			return nil, err
		}
		return nil, refusal.New(err)
	}
	if d.imgs, err = choose(abs, opts.Images); err != nil {
		return nil, refusal.New(err)
	}
	for _, n := range needs {
		d.rec.Tools = append(d.rec.Tools, d.tools[n])
	}
	return d, nil
}

// plan checks the target's options, fills the receipt's target, sets the
// runner and returns the tools it needs.
func (d *delivery) plan() ([]string, error) {
	o := d.opts
	c := o.Containerd
	if c.Address == "" {
		c.Address = DefaultContainerdAddress
	}
	if c.Namespace == "" {
		c.Namespace = DefaultContainerdNamespace
	}
	switch o.Target {
	case TargetContainerd:
		d.rec.Target = ReceiptTarget{Kind: o.Target, Address: c.Address, Namespace: c.Namespace}
		d.runner = func(ctx context.Context) error { return d.stream(ctx, ToolCtr, ctrArgs(c), archiveFormat{}) }
		return []string{ToolCtr}, nil
	case TargetDocker:
		d.rec.Target = ReceiptTarget{Kind: o.Target}
		d.runner = func(ctx context.Context) error {
			return d.stream(ctx, ToolDocker, []string{"load"}, archiveFormat{dockerManifest: true})
		}
		return []string{ToolDocker}, nil
	case TargetSSHContainerd:
		return d.planSSH(c)
	case TargetRegistry:
		return nil, d.planRegistry()
	case "":
		return nil, refusedf("no import target: choose containerd, docker, ssh-containerd or registry")
	}
	return nil, refusedf("unknown import target %q: choose containerd, docker, ssh-containerd or registry", o.Target)
}

func ctrArgs(c ContainerdOptions) []string {
	return []string{"--address", c.Address, "--namespace", c.Namespace, "images", "import", "-"}
}

func (d *delivery) planSSH(c ContainerdOptions) ([]string, error) {
	s := d.opts.SSH
	if s.Host == "" || strings.HasPrefix(s.Host, "-") {
		return nil, refusedf("import to ssh-containerd needs the node's ssh host, USER@HOST")
	}
	ctr := s.Ctr
	if ctr == "" {
		ctr = "ctr"
	}
	remote := shellQuote(append([]string{ctr}, ctrArgs(c)...))
	if s.Sudo {
		remote = "sudo -n " + remote
	}
	d.rec.Target = ReceiptTarget{Kind: TargetSSHContainerd, Host: s.Host, Port: s.Port, Address: c.Address, Namespace: c.Namespace, Remote: remote}
	args := sshArgs(s)
	d.runner = func(ctx context.Context) error {
		return d.stream(ctx, ToolSSH, append(args, "--", s.Host, remote), archiveFormat{})
	}
	return []string{ToolSSH}, nil
}

// sshArgs are the options of every ssh run: batch mode (never a password
// prompt), host keys always checked.
func sshArgs(s SSHOptions) []string {
	args := []string{"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes"}
	if s.Port != 0 {
		args = append(args, "-p", strconv.Itoa(s.Port))
	}
	if s.Identity != "" {
		args = append(args, "-i", s.Identity, "-o", "IdentitiesOnly=yes")
	}
	if s.KnownHosts != "" {
		args = append(args, "-o", "UserKnownHostsFile="+s.KnownHosts)
	}
	for _, o := range s.Options {
		args = append(args, "-o", o)
	}
	return args
}

// shellQuote joins words for a POSIX shell, each single-quoted.
func shellQuote(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// run delivers the images and writes the receipt whatever the outcome.
func (d *delivery) run(ctx context.Context) (*Receipt, error) {
	r := d.rec
	for _, c := range d.imgs {
		r.Images = append(r.Images, ReceiptImage{Name: c.name, Reference: c.reference, Digest: c.desc.Digest.String(), Size: imageSize(c)})
	}
	r.Started = time.Now().UTC()
	err := d.runner(ctx)
	r.Finished = time.Now().UTC()
	switch {
	case err == nil:
		r.Outcome = OutcomeSucceeded
	case ctx.Err() != nil:
		r.Outcome = OutcomeInterrupted
	default:
		r.Outcome = OutcomeFailed
	}
	if err != nil {
		err = errors.New(d.red.clean(err.Error()))
		r.Error = err.Error()
	}
	dir := d.opts.ReceiptDir
	if dir == "" {
		dir = filepath.Join(filepath.Dir(d.dir), "receipts")
	}
	if werr := r.write(dir); werr != nil {
		return r, errors.Join(err, werr)
	}
	if err != nil {
		return r, fmt.Errorf("import to %s (receipt %s): %w", d.opts.Target, r.Path, err)
	}
	return r, nil
}

func imageSize(c chosen) int64 {
	n := c.desc.Size + c.config.Size
	for _, l := range c.layers {
		n += l.Size
	}
	return n
}

// stream runs the granted tool with the images' archive on its stdin.
func (d *delivery) stream(ctx context.Context, tool string, args []string, f archiveFormat) error {
	t := d.tools[tool]
	fmt.Fprintf(d.log, "streaming %d image(s) into %s %s\n", len(d.imgs), t.Path, strings.Join(args, " "))
	n, _, err := streamTo(ctx, t.Path, args, func(w io.Writer) error {
		return writeArchive(ctx, w, d.dir, d.imgs, f)
	}, d.log)
	d.rec.BytesSent = n
	return err
}
