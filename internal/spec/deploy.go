package spec

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// The deliveries of [deploy] deliver: where `piceli deploy` puts the
// images it built before it plans.
const (
	DeliverNone       = "none"       // keep them in the layout (nodes that need no image, such as kwok's)
	DeliverContainerd = "containerd" // stream them into a containerd through the granted ctr
	DeliverRegistry   = "registry"   // push them to a registry the nodes pull from
)

// Bounds of [telemetry] export_timeout.
const (
	DefaultExportTimeout = 3 * time.Second
	MaxExportTimeout     = 10 * time.Second
)

// Deploy is the [deploy] table: how `piceli deploy` delivers the images
// its build stage made. Grants (which ctr runs) are never read from the
// file: the command line gives them.
type Deploy struct {
	Deliver string // DeliverNone (the default), DeliverContainerd or DeliverRegistry
	// ContainerdAddress is containerd's socket, absolute; empty means the
	// artifact package's default. Only with DeliverContainerd.
	ContainerdAddress   string
	ContainerdNamespace string // empty means k8s.io, the kubelet's
	Registry            string // host:port, with DeliverRegistry
}

// Telemetry is the [telemetry] table. An empty OTLPEndpoint sends nothing.
type Telemetry struct {
	OTLPEndpoint  string        // an http:// or https:// URL of an OTLP/HTTP receiver
	ExportTimeout time.Duration // DefaultExportTimeout when not set; at most MaxExportTimeout
}

// deploy validates [deploy].
func (p *parser) deploy(r rawDeploy) Deploy {
	d := Deploy{Deliver: p.errs.Optional("deploy.deliver", r.Deliver, DeliverNone)}
	switch d.Deliver {
	case DeliverNone, DeliverContainerd, DeliverRegistry:
	default:
		p.errs.Add("deploy.deliver", "%q: want %q, %q or %q", d.Deliver, DeliverNone, DeliverContainerd, DeliverRegistry)
	}
	if r.ContainerdAddress != nil {
		d.ContainerdAddress = p.path(p.errs.Optional("deploy.containerd_address", r.ContainerdAddress, ""))
	}
	d.ContainerdNamespace = p.errs.Optional("deploy.containerd_namespace", r.ContainerdNamespace, "")
	d.Registry = p.errs.Optional("deploy.registry", r.Registry, "")
	p.deliveryKeys(d)
	return d
}

// deliveryKeys refuses keys that the chosen delivery does not use, and a
// registry delivery without its registry.
func (p *parser) deliveryKeys(d Deploy) {
	if d.Deliver != DeliverContainerd {
		if d.ContainerdAddress != "" {
			p.errs.Add("deploy.containerd_address", "is used only with deliver = %q", DeliverContainerd)
		}
		if d.ContainerdNamespace != "" {
			p.errs.Add("deploy.containerd_namespace", "is used only with deliver = %q", DeliverContainerd)
		}
	}
	switch {
	case d.Deliver == DeliverRegistry && d.Registry == "":
		p.errs.Add("deploy.registry", "required with deliver = %q; write HOST:PORT", DeliverRegistry)
	case d.Deliver != DeliverRegistry && d.Registry != "":
		p.errs.Add("deploy.registry", "is used only with deliver = %q", DeliverRegistry)
	case strings.Contains(d.Registry, "/"):
		p.errs.Add("deploy.registry", "%q: want HOST:PORT, without a scheme or path", d.Registry)
	}
}

// telemetry validates [telemetry].
func (p *parser) telemetry(r rawTelemetry) Telemetry {
	t := Telemetry{ExportTimeout: DefaultExportTimeout}
	if r.OTLPEndpoint != nil {
		t.OTLPEndpoint = p.errs.Optional("telemetry.otlp_endpoint", r.OTLPEndpoint, "")
		if err := CheckEndpoint(t.OTLPEndpoint); err != nil {
			p.errs.Add("telemetry.otlp_endpoint", "%v", err)
		}
	}
	if r.ExportTimeout != nil {
		t.ExportTimeout = p.duration("telemetry.export_timeout", r.ExportTimeout)
		if t.ExportTimeout > MaxExportTimeout {
			p.errs.Add("telemetry.export_timeout", "%q is above the hard maximum of %s", *r.ExportTimeout, MaxExportTimeout)
		}
	}
	return t
}

// CheckEndpoint checks an OTLP/HTTP endpoint as [telemetry] otlp_endpoint
// and --otlp-endpoint take it: an http or https URL with a host and no
// user information (credentials never go in a URL Piceli may print).
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL", endpoint)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: want an http:// or https:// URL such as http://127.0.0.1:4318", endpoint)
	case u.Host == "":
		return fmt.Errorf("%q has no host", endpoint)
	case u.User != nil:
		return fmt.Errorf("the endpoint must not carry credentials")
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%q: no query or fragment", endpoint)
	}
	return nil
}
