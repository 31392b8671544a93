package access

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ForwardTimeout bounds how long Forward waits for a ready pod.
const ForwardTimeout = 30 * time.Second

// Target is one port of a Service (or of a Deployment's or a Pod's
// containers) to forward for a while, written "service/NAME:PORT",
// "deployment/NAME:PORT" or "pod/NAME:PORT".
type Target struct {
	Kind Kind
	Name string
	Port int32 // the Service port, or the container port of a Deployment or Pod
}

// targetKinds are the words a Target may start with.
var targetKinds = map[string]Kind{"service": KindService, "deployment": KindDeployment, "pod": KindPod}

// ParseTarget reads "KIND/NAME:PORT": KIND is service, deployment or pod,
// NAME an object name and PORT a number from 1 to 65535.
func ParseTarget(s string) (Target, error) {
	kindName, portText, ok := strings.Cut(s, ":")
	word, name, ok2 := strings.Cut(kindName, "/")
	kind, known := targetKinds[word]
	port, err := strconv.Atoi(portText)
	if !ok || !ok2 || !known || err != nil || port < 1 || port > 65535 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return Target{}, fmt.Errorf("port-forward target %q: want service/NAME:PORT, deployment/NAME:PORT or pod/NAME:PORT", s)
	}
	return Target{Kind: kind, Name: name, Port: int32(port)}, nil
}

// String is t as ParseTarget reads it.
func (t Target) String() string {
	return fmt.Sprintf("%s/%s:%d", strings.ToLower(string(t.Kind)), t.Name, t.Port)
}

// Forward forwards t's port in namespace from an ephemeral port on
// 127.0.0.1 for as long as the caller needs it, as Start does (a ready
// pod, websocket falling back to SPDY, moving to another ready pod when
// that one goes away). It waits up to ForwardTimeout, or until ctx ends,
// for a ready pod, then returns the local address and the function that
// ends the forward; the caller must call it. opts.OnEvent, when set, is
// called from the forward's goroutines.
func Forward(ctx context.Context, cfg *rest.Config, cs kubernetes.Interface, namespace string, t Target, opts Options) (netip.AddrPort, func(), error) {
	r := Request{Namespace: namespace, Service: t.Name, Kind: t.Kind, Ports: []Port{{Port: t.Port, Local: Ephemeral}}}
	s, err := Start(ctx, cfg, cs, []Request{r}, opts)
	if err != nil {
		return netip.AddrPort{}, nil, err
	}
	wait, cancel := context.WithTimeoutCause(ctx, ForwardTimeout, errors.New("no ready pod after "+ForwardTimeout.String()))
	defer cancel()
	if err := s.WaitReady(wait); err != nil {
		s.Close()
		return netip.AddrPort{}, nil, err
	}
	return s.Forwards()[0].Local, s.Close, nil
}
