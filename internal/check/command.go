package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/access"
	"github.com/pynenc/piceli/internal/spec"
)

// forwardWait bounds how long a command check waits for a Service it was
// not told to forward (every Service of the release) to have a ready pod:
// one without is left out of the environment rather than failing the check.
const forwardWait = 10 * time.Second

// command runs the check's program with the forwarded addresses in its
// environment; exit status 0 passes. Its output (stdout and stderr
// together) is kept as a bounded tail, so a program printing gigabytes
// costs MaxExcerpt bytes. When the attempt's time is up the program's
// whole process group is killed.
func (r *Runner) command(ctx context.Context, c *spec.CommandCheck) (string, error) {
	fws, notes, err := r.commandForwards(ctx, c)
	defer func() {
		for _, f := range fws {
			f.Close()
		}
	}()
	if err != nil {
		return strings.Join(notes, "\n"), err
	}
	out := newTail(MaxExcerpt)
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
	cmd := exec.CommandContext(ctx, program(c), c.Run[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = c.Dir, out, out
	cmd.Env = append(r.environment(), addrEnv(fws)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second // output pipes held by a grandchild do not hold the check
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), nil
	case ctx.Err() != nil:
		return out.String(), fmt.Errorf("%s was killed (with its process group)", c.Run[0])
	case errors.As(err, &exit):
		return out.String(), fmt.Errorf("%s exited with %s", c.Run[0], exit.ProcessState)
	}
	return out.String(), fmt.Errorf("run %s: %w", c.Run[0], err)
}

// program resolves the program: a path with a slash against the check's
// directory, else a name looked up in $PATH by exec.
func program(c *spec.CommandCheck) string {
	p := c.Run[0]
	if strings.Contains(p, "/") && !filepath.IsAbs(p) {
		return filepath.Join(c.Dir, p)
	}
	return p
}

// environment is the base environment of a command check.
func (r *Runner) environment() []string {
	if r.Env != nil {
		return slices.Clone(r.Env)
	}
	return os.Environ()
}

// commandForwards forwards every port of the check's Services (or of every
// Service of the release, leaving out, with a note, those without a ready
// pod in forwardWait).
func (r *Runner) commandForwards(ctx context.Context, c *spec.CommandCheck) ([]*forwards, []string, error) {
	names, strict := c.Services, true
	if names == nil {
		names, strict = r.Services, false
	}
	var out []*forwards
	var notes []string
	for _, name := range names {
		f, err := r.forwardAll(ctx, name, strict)
		switch {
		case err != nil && strict:
			return out, notes, err
		case err != nil:
			notes = append(notes, fmt.Sprintf("piceli: %s not forwarded: %s", name, oneLine(err.Error())))
		default:
			out = append(out, f)
		}
	}
	return out, notes, nil
}

// forwardAll forwards every port of Service name.
func (r *Runner) forwardAll(ctx context.Context, name string, strict bool) (*forwards, error) {
	svc, err := r.Client.Clientset.CoreV1().Services(r.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read Service/%s/%s: %w", r.Namespace, name, err)
	}
	req := access.Request{Namespace: r.Namespace, Service: name}
	for _, p := range svc.Spec.Ports {
		req.Ports = append(req.Ports, access.Port{Name: p.Name, Port: p.Port})
	}
	if !strict {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, forwardWait)
		defer cancel()
	}
	return r.forward(ctx, []access.Request{req})
}

// addrEnv names each forwarded address PICELI_<SERVICE>_<PORT>_ADDR, by
// port number and, for a named port, by its name too.
func addrEnv(fws []*forwards) []string {
	var env []string
	for _, f := range fws {
		for _, fw := range f.Forwards() {
			env = append(env, EnvName(fw.Service, fmt.Sprint(fw.Port))+"="+fw.Local.String())
			if fw.PortName != "" {
				env = append(env, EnvName(fw.Service, fw.PortName)+"="+fw.Local.String())
			}
		}
	}
	return env
}

// EnvName is the variable a command check finds a forwarded Service port
// in: PICELI_<SERVICE>_<PORT>_ADDR, upper case, with every character
// that is not a letter or digit as '_' (service web-api, port http:
// PICELI_WEB_API_HTTP_ADDR).
func EnvName(service, port string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z':
				return r - 'a' + 'A'
			case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
				return r
			}
			return '_'
		}, s)
	}
	return "PICELI_" + clean(service) + "_" + clean(port) + "_ADDR"
}
