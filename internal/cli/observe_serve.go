package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/observe"
)

func newObserveServeCmd() *cobra.Command {
	var c clusterFlags
	var p prefsFlags
	var archivePath, address string
	var port int
	cmd := &cobra.Command{
		Use:   "serve --archive FILE --kubeconfig F --context C [--user U] [--port 9876]",
		Short: "Serve the lens as a loopback REST API and browser UI",
		Long: `Serve the operations lens on 127.0.0.1 (or ::1) only: a JSON REST API
(/healthz, /v1/status, /v1/objects, /v1/forwards, /v1/logs, POST
/v1/forwards/start and /v1/forwards/stop) and a browser UI from embedded
assets (no CDN, no external font).

It prints a launch URL carrying a one-time secret: the browser that opens
it first gets a session cookie (HttpOnly, SameSite=Strict) and the clean
URL; the page and every /v1 request need that cookie, and the page without
it says to open the launch URL and carries nothing else. The Host header
must name the server on its port (127.0.0.1, [::1] or localhost); a POST
also needs the server's own Origin.
No CORS headers; a strict Content-Security-Policy; bodies up to 4 KiB.

Steps:
  1. read the archive and, with --user, that user's saved forwards for this
     cluster and context
  2. listen, start those forwards, print the one-time launch URL
  3. serve until Ctrl-C, then end every forward it started`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			prefs, err := p.prefs(false)
			if err != nil {
				return err
			}
			a, err := observe.ReadArchive(archivePath)
			if err != nil {
				return err
			}
			cl, err := c.connect(cmd)
			if err != nil {
				return err
			}
			s, err := observe.NewServer(cmd.Context(), observe.ServeOptions{Archive: a, Cluster: cl, Address: address, Port: port, User: p.user, Prefs: prefs, Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			cmd.Printf("serving the operations lens at %s (open it once; Ctrl-C to stop)\n", s.LaunchURL())
			err = s.Serve(cmd.Context())
			cmd.PrintErrln("stopped; every forward it started has ended")
			return err
		},
	}
	c.register(cmd)
	p.register(cmd, false)
	cmd.Flags().StringVar(&archivePath, "archive", "", "session archive file (piceli release archive writes one)")
	cmd.Flags().StringVar(&address, "address", "127.0.0.1", usageAddress)
	cmd.Flags().IntVar(&port, "port", observe.DefaultPort, usagePort+" (0: any free port)")
	return cmd
}
