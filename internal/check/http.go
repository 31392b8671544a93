package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/spec"
)

// maxBody bounds how much of a response body an http check reads.
const maxBody = 1 << 20

// http sends the check's request through a fresh forward and compares the
// answer. The excerpt is the status line and the start of the body; the
// request's headers are never in it.
func (r *Runner) http(ctx context.Context, h *spec.HTTPCheck) (string, error) {
	f, addr, err := r.servicePort(ctx, h.Service, h.Port)
	if err != nil {
		return "", err
	}
	defer f.Close()
	req, err := http.NewRequestWithContext(ctx, h.Method, "http://"+addr.String()+h.Path, nil)
	if err != nil {
		return "", err
	}
	for k, v := range h.Headers {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := loopbackClient().Do(req)
	if err != nil {
		return "", withPodErrors(fmt.Errorf("%s %s: %w", h.Method, h.Path, unwrapURL(err)), f)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	excerpt := fmt.Sprintf("%s %s → %s\n%s", h.Method, h.Path, resp.Status, body)
	if err != nil {
		return excerpt, fmt.Errorf("read the body of %s %s: %w", h.Method, h.Path, err)
	}
	return excerpt, judge(h, resp.StatusCode, string(body))
}

// judge compares an answer with what the check expects.
func judge(h *spec.HTTPCheck, status int, body string) error {
	switch {
	case status != h.ExpectStatus:
		return fmt.Errorf("%s %s answered status %d, want %d", h.Method, h.Path, status, h.ExpectStatus)
	case h.BodyContains != "" && !strings.Contains(body, h.BodyContains):
		return fmt.Errorf("the body of %s %s does not contain %q", h.Method, h.Path, h.BodyContains)
	case h.BodyRegexp != "" && !regexp.MustCompile(h.BodyRegexp).MatchString(body):
		return fmt.Errorf("the body of %s %s does not match %q", h.Method, h.Path, h.BodyRegexp)
	}
	return nil
}

// loopbackClient is an HTTP client for one request to a loopback forward:
// no proxy from the environment (a request must never leave the machine),
// no keep-alive, no redirects followed (a redirect is an answer to check).
func loopbackClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// unwrapURL drops the *url.Error wrapper, which repeats the method and
// the loopback URL.
func unwrapURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && strings.Contains(err.Error(), "http://127.0.0.1") {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// withPodErrors adds what the pod side said to err.
func withPodErrors(err error, f *forwards) error {
	if errs := f.podErrors(); len(errs) > 0 {
		return fmt.Errorf("%w (%s)", err, strings.Join(errs, "; "))
	}
	return err
}
