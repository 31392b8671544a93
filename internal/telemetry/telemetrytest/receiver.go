// Package telemetrytest is an OTLP/HTTP receiver for tests: an in-process
// server on 127.0.0.1 that decodes the OTLP protobufs it is sent, or one
// that never answers.
package telemetrytest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver is a running test receiver. URL is its base endpoint.
type Receiver struct {
	URL string

	mu    sync.Mutex
	spans []*tracepb.Span
	logs  []*logspb.LogRecord
	raw   [][]byte
}

// Start serves OTLP/HTTP on 127.0.0.1 until the test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.traces)
	mux.HandleFunc("POST /v1/logs", r.logsHandler)
	r.URL = serve(t, mux)
	return r
}

// Silent accepts connections on 127.0.0.1 and reads requests but never
// answers one until the test ends: the receiver a deploy must not wait for.
func Silent(t testing.TB) string {
	t.Helper()
	stop := make(chan struct{})
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		select {
		case <-stop:
		case <-req.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stop) })
	return url
}

// ClosedPort returns an endpoint on 127.0.0.1 where nothing listens.
func ClosedPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func serve(t testing.TB, h http.Handler) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}

func (r *Receiver) body(w http.ResponseWriter, req *http.Request) ([]byte, bool) {
	var rd io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return nil, false
		}
		rd = z
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	r.mu.Lock()
	r.raw = append(r.raw, data)
	r.mu.Unlock()
	return data, true
}

func (r *Receiver) traces(w http.ResponseWriter, req *http.Request) {
	data, ok := r.body(w, req)
	if !ok {
		return
	}
	var msg coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	r.mu.Unlock()
	reply(w, &coltrace.ExportTraceServiceResponse{})
}

func (r *Receiver) logsHandler(w http.ResponseWriter, req *http.Request) {
	data, ok := r.body(w, req)
	if !ok {
		return
	}
	var msg collogs.ExportLogsServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rl := range msg.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			r.logs = append(r.logs, sl.LogRecords...)
		}
	}
	r.mu.Unlock()
	reply(w, &collogs.ExportLogsServiceResponse{})
}

func reply(w http.ResponseWriter, m proto.Message) {
	out, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// Logs returns the log records received so far.
func (r *Receiver) Logs() []*logspb.LogRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*logspb.LogRecord(nil), r.logs...)
}

// Raw returns every request body received, decompressed, for sweeps.
func (r *Receiver) Raw() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Join(r.raw, nil)
}
