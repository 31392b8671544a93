package artifact

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/pynenc/piceli/internal/access"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/refusal"
)

// planRegistry checks the registry options and sets the push runner.
func (d *delivery) planRegistry() error {
	o := d.opts.Registry
	t := ReceiptTarget{Kind: TargetRegistry, Address: o.Address, Auth: o.Username != ""}
	switch {
	case o.Address != "" && o.ViaForward != "":
		return refusedf("import to registry: give a registry address or a port-forward to one, not both")
	case o.ViaForward != "":
		ft, err := access.ParseTarget(o.ViaForward)
		if err != nil {
			return refusal.New(err)
		}
		if o.Kubeconfig == "" || o.Context == "" || o.Namespace == "" {
			return refusedf("import to registry through a port-forward: name the kubeconfig file, its context and the namespace: piceli never guesses a cluster")
		}
		t.ViaForward, t.Context, t.KubeNS = o.ViaForward, o.Context, o.Namespace
		d.runner = func(ctx context.Context) error { return d.pushForwarded(ctx, ft) }
	case o.Address != "":
		if _, err := name.NewRegistry(o.Address); err != nil || strings.Contains(o.Address, "/") {
			return refusedf("registry address %q: want HOST:PORT", o.Address)
		}
		if o.Username != "" && !o.Insecure && !isLoopback(o.Address) && plainHTTP(o.Address) {
			return refusedf("registry %s would be plain HTTP: credentials go over TLS only, unless plain HTTP is explicitly allowed (insecure)", o.Address)
		}
		d.runner = func(ctx context.Context) error { return d.push(ctx, o.Address, o.Address) }
	default:
		return refusedf("import to registry needs a registry address (HOST:PORT) or a port-forward to one (service/NAME:PORT)")
	}
	d.rec.Target = t
	return nil
}

func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

func plainHTTP(addr string) bool {
	r, err := name.NewRegistry(addr)
	return err == nil && r.Scheme() == "http"
}

// pushForwarded pushes through a port-forward (package access) from a
// free port on 127.0.0.1 that lasts for the push.
func (d *delivery) pushForwarded(ctx context.Context, ft access.Target) error {
	o := d.opts.Registry
	c, err := kube.Connect(ctx, kube.Options{Kubeconfig: o.Kubeconfig, Context: o.Context, AllowExec: o.AllowExec})
	if err != nil {
		return err
	}
	fmt.Fprintln(d.log, c.Using())
	local, end, err := access.Forward(ctx, c.Config, c.Clientset, o.Namespace, ft, access.Options{})
	if err != nil {
		return err
	}
	defer end()
	fmt.Fprintf(d.log, "forwarding %s to %s in namespace %s\n", local, ft, o.Namespace)
	d.rec.Target.Address = local.String()
	return d.push(ctx, local.String(), fmt.Sprintf("%s.%s.svc:%d", ft.Name, o.Namespace, ft.Port))
}

// push sends each image to addr: the blobs the registry lacks (a layer
// already pushed to another repository of this import is mounted from
// there, not sent again), then the manifest, by digest. Receipt references
// name the registry as refName.
func (d *delivery) push(ctx context.Context, addr, refName string) error {
	o := d.opts.Registry
	var nameOpts []name.Option
	if o.Insecure || isLoopback(addr) {
		nameOpts = append(nameOpts, name.Insecure)
	}
	reg, err := name.NewRegistry(addr, nameOpts...)
	if err != nil {
		return err
	}
	ct := &countingTransport{base: loopbackSafeTransport(), uploads: map[string]int64{}, seen: map[string]*ReceiptBlob{}}
	opts := []remote.Option{remote.WithContext(ctx), remote.WithTransport(ct), remote.WithJobs(1)}
	if o.Username != "" {
		opts = append(opts, remote.WithAuth(authn.FromConfig(authn.AuthConfig{Username: o.Username, Password: o.Password})))
	}
	pushed := map[v1.Hash]name.Digest{} // layer -> an image of this import that holds it
	for i, c := range d.imgs {
		if err := d.pushImage(c, reg, opts, pushed); err != nil {
			d.rec.Blobs, d.rec.BytesSent = ct.result()
			return fmt.Errorf("push %s: %w", c.name, err)
		}
		d.rec.Images[i].Reference = refName + "/" + c.repository + "@" + c.desc.Digest.String()
	}
	d.rec.Blobs, d.rec.BytesSent = ct.result()
	return nil
}

func (d *delivery) pushImage(c chosen, reg name.Registry, opts []remote.Option, pushed map[v1.Hash]name.Digest) error {
	img, err := layout.Path(d.dir).Image(c.desc.Digest)
	if err != nil {
		return err
	}
	repo := reg.Repo(c.repository)
	ref := repo.Digest(c.desc.Digest.String())
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	for _, l := range layers {
		h, err := l.Digest()
		if err != nil {
			return err
		}
		var up v1.Layer = l
		if from, ok := pushed[h]; ok && from.Context() != repo {
			up = &remote.MountableLayer{Layer: l, Reference: from}
		}
		if err := remote.WriteLayer(repo, up, opts...); err != nil {
			return fmt.Errorf("layer %s: %w", h, err)
		}
		if _, ok := pushed[h]; !ok {
			pushed[h] = ref
		}
	}
	fmt.Fprintf(d.log, "pushing %s\n", ref)
	return remote.Write(ref, img, opts...)
}

// loopbackSafeTransport is ggcr's default transport without proxies: a
// push to 127.0.0.1 must not leave the machine through $HTTPS_PROXY.
func loopbackSafeTransport() http.RoundTripper {
	t := remote.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	return t
}

// countingTransport watches a push: which blobs the registry had, which it
// mounted, which were sent and how many bytes went out.
type countingTransport struct {
	base    http.RoundTripper
	mu      sync.Mutex
	uploads map[string]int64 // upload session path -> bytes sent so far
	seen    map[string]*ReceiptBlob
	order   []string
	total   int64
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body *countingBody
	if req.Body != nil && req.Body != http.NoBody {
		body = &countingBody{rc: req.Body}
		req = req.Clone(req.Context())
		req.Body = body
	}
	resp, err := t.base.RoundTrip(req)
	var n int64
	if body != nil {
		n = body.count()
	}
	t.observe(req, resp, n)
	return resp, err
}

// observe records what one request did, from the distribution API's paths.
func (t *countingTransport) observe(req *http.Request, resp *http.Response, sent int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += sent
	if resp == nil {
		return
	}
	repo, rest, ok := splitV2(req.URL.Path)
	if !ok {
		return
	}
	switch {
	case req.Method == http.MethodHead && strings.HasPrefix(rest, "blobs/sha256:") && resp.StatusCode == http.StatusOK:
		t.blob(repo, strings.TrimPrefix(rest, "blobs/"), resp.ContentLength, "present", 0)
	case req.Method == http.MethodPost && req.URL.Query().Get("mount") != "" && resp.StatusCode == http.StatusCreated:
		t.blob(repo, req.URL.Query().Get("mount"), -1, "mounted", 0)
	case req.Method == http.MethodPatch && strings.HasPrefix(rest, "blobs/uploads/"):
		t.uploads[rest] += sent
		if loc, err := resp.Location(); err == nil {
			if _, next, ok := splitV2(loc.Path); ok && next != rest {
				t.uploads[next] += t.uploads[rest]
				delete(t.uploads, rest)
			}
		}
	case req.Method == http.MethodPut && strings.HasPrefix(rest, "blobs/uploads/") && resp.StatusCode == http.StatusCreated:
		d := req.URL.Query().Get("digest")
		t.blob(repo, d, -1, "sent", t.uploads[rest]+sent)
		delete(t.uploads, rest)
	}
}

func (t *countingTransport) blob(repo, digest string, size int64, action string, sent int64) {
	key := repo + "@" + digest
	prev, ok := t.seen[key]
	if !ok {
		t.order = append(t.order, key)
	}
	if ok && prev.Action != "present" {
		return // the check after an upload or a mount finds what they left
	}
	if size < 0 {
		size = sent
	}
	t.seen[key] = &ReceiptBlob{Repository: repo, Digest: digest, Size: size, Action: action, BytesSent: sent}
}

func (t *countingTransport) result() ([]ReceiptBlob, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []ReceiptBlob
	for _, k := range t.order {
		out = append(out, *t.seen[k])
	}
	return out, t.total
}

// splitV2 splits "/v2/<repo>/blobs/..." or "/v2/<repo>/manifests/..." into
// the repository and the rest.
func splitV2(p string) (repo, rest string, ok bool) {
	p, ok = strings.CutPrefix(p, "/v2/")
	if !ok {
		return "", "", false
	}
	for _, sep := range []string{"/blobs/", "/manifests/"} {
		if i := strings.LastIndex(p, sep); i > 0 {
			return p[:i], p[i+1:], true
		}
	}
	return "", "", false
}

type countingBody struct {
	mu sync.Mutex
	rc io.ReadCloser
	n  int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	b.n += int64(n)
	b.mu.Unlock()
	return n, err
}

func (b *countingBody) Close() error { return b.rc.Close() }

func (b *countingBody) count() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}
