package faultproxy

import (
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fault injects one Kind into an exchange. It records req itself, since
// only it knows whether the request was forwarded.
type fault func(p *Proxy, rule *Rule, req Request, w http.ResponseWriter, r *http.Request)

// faults implements every Kind; Kinds is derived from it.
var faults = map[Kind]fault{
	Status:             answerStatus,
	StatusAfterForward: forwardThenStatus,
	Delay:              delayThenForward,
	Reset:              resetWithoutForward,
	ResetAfterForward:  forwardThenReset,
	CutWatch:           forwardThenCut,
	CutAnswer:          forwardHalfAnswer,
}

// Kinds returns every fault kind the proxy implements, sorted.
func Kinds() []Kind {
	out := make([]Kind, 0, len(faults))
	for k := range faults {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func answerStatus(p *Proxy, rule *Rule, req Request, w http.ResponseWriter, _ *http.Request) {
	p.record(req, false)
	if rule.RetryAfter > 0 {
		secs := max(1, int(rule.RetryAfter.Round(time.Second)/time.Second))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	writeStatus(w, rule.Code)
}

func forwardThenStatus(p *Proxy, rule *Rule, req Request, w http.ResponseWriter, r *http.Request) {
	p.forward(req, httptest.NewRecorder(), r)
	writeStatus(w, rule.Code)
}

func delayThenForward(p *Proxy, rule *Rule, req Request, w http.ResponseWriter, r *http.Request) {
	select {
	case <-time.After(rule.Delay):
	case <-r.Context().Done():
		p.record(req, false)
		return
	}
	p.forward(req, w, r)
}

func resetWithoutForward(p *Proxy, _ *Rule, req Request, w http.ResponseWriter, r *http.Request) {
	p.record(req, false)
	_, _ = io.Copy(io.Discard, r.Body)
	reset(w)
}

func forwardThenReset(p *Proxy, _ *Rule, req Request, w http.ResponseWriter, r *http.Request) {
	p.forward(req, httptest.NewRecorder(), r)
	reset(w)
}

func forwardThenCut(p *Proxy, rule *Rule, req Request, w http.ResponseWriter, r *http.Request) {
	p.forwardWithin(req, w, r, rule.Delay)
	// Ending the handler normally would close a chunked answer cleanly;
	// aborting drops the connection mid-stream, as a cut watch does.
	panic(http.ErrAbortHandler)
}

func forwardHalfAnswer(p *Proxy, _ *Rule, req Request, w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	p.forward(req, rec, r)
	body := rec.Body.Bytes()
	maps.Copy(w.Header(), rec.Header())
	// The full length, so the client knows the answer was cut short.
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body[:len(body)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

// reset drops the client's connection with a TCP reset, no answer sent.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0) // close sends RST, not FIN
	}
	_ = conn.Close()
}

// writeStatus answers code with a Kubernetes Status body, so clients read
// it as the server's own refusal.
func writeStatus(w http.ResponseWriter, code int) {
	body, _ := json.Marshal(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  "fault proxy: injected " + strconv.Itoa(code) + " " + http.StatusText(code),
		Reason:   reasonFor(code),
		Code:     int32(code),
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func reasonFor(code int) metav1.StatusReason {
	switch code {
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusUnprocessableEntity:
		return metav1.StatusReasonInvalid
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	case http.StatusInternalServerError:
		return metav1.StatusReasonInternalError
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	}
	return metav1.StatusReasonUnknown
}
