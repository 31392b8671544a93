package source

import (
	"context"
	"net/http"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// boundKey carries, in a request's context, the bound on each response
// a Git source reads over HTTP.
type boundKey struct{}

func withBound(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, boundKey{}, n)
}

// boundedGitTransport bounds the body of every response to a request
// whose context carries a bound; other requests pass as they are.
type boundedGitTransport struct{ base http.RoundTripper }

func (t boundedGitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if n, ok := req.Context().Value(boundKey{}).(int64); ok && err == nil {
		resp.Body = &boundedBody{rc: resp.Body, left: n, limit: n, host: req.URL.Host}
	}
	return resp, err
}

var installHTTP sync.Once

// installBoundedHTTP makes go-git's http and https transports bound what
// they read when the context says so. go-git chooses its transport by
// scheme, process-wide; requests without a bound are not changed.
func installBoundedHTTP() {
	installHTTP.Do(func() {
		c := githttp.NewClient(&http.Client{Transport: boundedGitTransport{base: http.DefaultTransport}})
		client.InstallProtocol("http", c)
		client.InstallProtocol("https", c)
	})
}
