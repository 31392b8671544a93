package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newAccessCmd() *cobra.Command {
	var f targetFlags
	var output string
	var only, ports []string
	cmd := &cobra.Command{
		Use:   "access --spec release.toml [--only NAME] [--port NAME=LOCAL]",
		Short: "Forward the release's Service ports to 127.0.0.1 until Ctrl-C",
		Long: `Forward every port of the release's Services to 127.0.0.1, supervised.

Steps:
  1. take the Services of the latest revision (before the first, the
     composition's); --only keeps those named
  2. bind 127.0.0.1 only: each port at the local port --port asks for, else
     the service port when it is 1024 or more and free, else the port plus
     10000 (80 → 10080; minus 10000 past 65535); a taken port is refused
     (exit 2), naming the port and the Service
  3. forward each Service to a ready pod of it through the API server's
     port-forward (websocket, falling back to SPDY), printing one line per
     port; when the pod goes away, move to another ready pod and say so
  4. on Ctrl-C close every listener and connection and exit 0

With -o json each event is one JSON object on a line of its own.

--port takes SERVICE=LOCAL (a Service of one port), SERVICE:PORT=LOCAL or
SERVICE:PORTNAME=LOCAL, once per port. Nothing is written to the cluster.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			locals, err := parsePorts(ports)
			if err != nil {
				return err
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			p := newAccessPrinter(cmd.OutOrStdout(), cmd.ErrOrStderr(), output)
			fmt.Fprintln(cmd.ErrOrStderr(), "forwarding to 127.0.0.1; Ctrl-C ends every forward")
			err = r.Access(cmd.Context(), release.AccessOptions{Only: only, Ports: locals, Events: p.event})
			if err == nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "every forward closed")
			}
			return err
		},
	}
	f.register(cmd)
	cmd.Flags().StringSliceVar(&only, "only", nil, usageOnly+"Services are forwarded (repeat or comma-separate)")
	cmd.Flags().StringArrayVar(&ports, "port", nil, usagePort+", per Service port: NAME=LOCAL (repeat)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

// parsePorts reads --port NAME=LOCAL values. LOCAL is a port number: the
// address is always 127.0.0.1, and nothing else can be asked for.
func parsePorts(values []string) (map[string]int, error) {
	out := map[string]int{}
	for _, v := range values {
		name, local, ok := strings.Cut(v, "=")
		n, err := strconv.Atoi(local)
		switch {
		case !ok || name == "":
			return nil, refusedf("--port %q: want NAME=LOCAL, such as web=8080", v)
		case err != nil || n < 1 || n > 65535:
			return nil, refusedf("--port %q: LOCAL must be a port number within 1-65535 (access binds 127.0.0.1 only)", v)
		}
		out[name] = n
	}
	return out, nil
}

// accessPrinter prints what the forwards do: one line per forwarded port
// on stdout, the rest on stderr; JSON lines on stdout with -o json.
type accessPrinter struct {
	mu     sync.Mutex
	out    io.Writer
	errOut io.Writer
	json   *json.Encoder
}

func newAccessPrinter(out, errOut io.Writer, output string) *accessPrinter {
	p := &accessPrinter{out: out, errOut: errOut}
	if output == "json" {
		p.json = json.NewEncoder(out)
	}
	return p
}

func (p *accessPrinter) event(e release.AccessEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json != nil {
		p.json.Encode(e.Doc())
		return
	}
	switch e.Kind {
	case release.AccessForwarding:
		fmt.Fprintf(p.out, "%-12s %-24s → service/%s:%d (pod %s)\n", e.Service, localURL(e), e.Service, e.Port, e.Pod)
	case release.AccessReconnected:
		fmt.Fprintf(p.out, "%-12s reconnected → pod %s (%s)\n", e.Service, e.Pod, e.Reason)
	case release.AccessWaiting:
		fmt.Fprintf(p.errOut, "%-12s waiting: %s\n", e.Service, e.Reason)
	case release.AccessConnectionError:
		fmt.Fprintf(p.errOut, "%-12s a connection to pod %s port %d failed: %s\n", e.Service, e.Pod, e.Port, e.Reason)
	}
}

// localURL spells a forward's local end: an http:// or https:// URL for a
// port that looks like HTTP by its name or number, else the address.
func localURL(e release.AccessEvent) string {
	name := strings.ToLower(e.PortName)
	switch {
	case name == "https" || strings.HasPrefix(name, "https-") || e.Port == 443 || e.Port == 8443:
		return "https://" + e.Local.String()
	case name == "http" || strings.HasPrefix(name, "http-") || name == "web" || e.Port == 80 || e.Port == 8080:
		return "http://" + e.Local.String()
	}
	return e.Local.String()
}
