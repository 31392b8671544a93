package check

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/pynenc/piceli/internal/spec"
)

// tcpSettle is how long a tcp check's connection must stay open (or bring
// data) to pass. Through a port-forward the local connect always succeeds;
// when nothing listens in the pod, the pod side closes the connection at
// once, with a reason on the error stream.
const tcpSettle = 500 * time.Millisecond

// tcp connects to the Service port through a fresh forward.
func (r *Runner) tcp(ctx context.Context, c *spec.TCPCheck) (string, error) {
	f, addr, err := r.servicePort(ctx, c.Service, c.Port)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr.String())
	if err != nil {
		return "", fmt.Errorf("connect to the forward of %s:%d: %w", c.Service, c.Port, err)
	}
	defer conn.Close()
	deadline := time.Now().Add(tcpSettle)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	conn.SetReadDeadline(deadline)
	n, err := conn.Read(make([]byte, 1))
	switch {
	case n > 0, errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("connected to %s:%d", c.Service, c.Port), nil
	case err != nil:
		return "", withPodErrors(fmt.Errorf("%s:%d closed the connection at once: %w", c.Service, c.Port, err), f)
	}
	return fmt.Sprintf("connected to %s:%d", c.Service, c.Port), nil
}
