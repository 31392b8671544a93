package telemetry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otellog "go.opentelemetry.io/otel/log"
	lognoop "go.opentelemetry.io/otel/log/noop"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Bounds of an export.
const (
	DefaultTimeout = 3 * time.Second  // export timeout when Options.Timeout is zero
	MaxTimeout     = 10 * time.Second // no export waits longer, whatever Options.Timeout says
	// MaxSpans bounds the spans queued for export; more are dropped.
	MaxSpans = 2048
	// MaxRequestBytes bounds one export request's body.
	MaxRequestBytes = 4 << 20
	// maxValueLen bounds one attribute value, so no object content fits.
	maxValueLen = 256
)

// Options say where a session exports. The zero value exports nothing.
type Options struct {
	// Endpoint is the receiver's base URL (http:// or https://); the
	// trace goes to Endpoint/v1/traces, the log record to Endpoint/v1/logs.
	// Empty disables the session: its tracer and logger do nothing.
	Endpoint string
	// Timeout bounds each export and Shutdown; zero means DefaultTimeout,
	// above MaxTimeout means MaxTimeout.
	Timeout time.Duration
	// Service names the sender (service.name); "piceli" when empty.
	Service string
	// TraceSeed, when set, makes the trace ID of every root span the first
	// 16 bytes of its SHA-256, so the spans of several processes working on
	// one deploy (a resume) share one trace.
	TraceSeed string
	// Resource attributes describe what is traced (the release). Values
	// from the environment never go here: the SDK's OTEL_RESOURCE_ATTRIBUTES
	// is not read.
	Resource []attribute.KeyValue
}

// Session is one run's telemetry. Its methods are safe for concurrent use.
type Session struct {
	endpoint string
	timeout  time.Duration
	tp       *sdktrace.TracerProvider
	lp       *sdklog.LoggerProvider
	tracer   trace.Tracer
	logger   otellog.Logger
	errs     *errorSink
}

// Report says how a session's export ended.
type Report struct {
	Endpoint string        `json:"endpoint,omitempty"`
	Took     time.Duration `json:"took"`            // how long Shutdown took
	Error    string        `json:"error,omitempty"` // the first export error, or that the bound was reached
}

// String is the report as one line: "sent to URL in 12ms" or "URL: ...".
func (r Report) String() string {
	switch {
	case r.Endpoint == "":
		return "off"
	case r.Error != "":
		return r.Endpoint + ": not sent: " + r.Error
	}
	return "sent to " + r.Endpoint + " in " + r.Took.Round(time.Millisecond).String()
}

// Start opens a session. It never fails and contacts nobody: exporting
// starts in the background as spans end.
func Start(opts Options) *Session {
	s := &Session{endpoint: opts.Endpoint, timeout: bound(opts.Timeout), tracer: tracenoop.NewTracerProvider().Tracer(""),
		logger: lognoop.NewLoggerProvider().Logger(""), errs: &errorSink{}}
	if opts.Endpoint == "" {
		return s
	}
	base := strings.TrimRight(opts.Endpoint, "/")
	if _, err := url.Parse(base); err != nil {
		s.errs.record(err)
		return s
	}
	service := opts.Service
	if service == "" {
		service = "piceli"
	}
	res := resource.NewSchemaless(append([]attribute.KeyValue{attribute.String("service.name", service)}, opts.Resource...)...)
	setErrorHandler(s.errs)
	s.tp = s.traceProvider(base+"/v1/traces", res, opts.TraceSeed)
	s.lp = s.logProvider(base+"/v1/logs", res)
	if s.tp != nil {
		s.tracer = s.tp.Tracer("github.com/pynenc/piceli")
	}
	if s.lp != nil {
		s.logger = s.lp.Logger("github.com/pynenc/piceli")
	}
	return s
}

func bound(d time.Duration) time.Duration {
	switch {
	case d <= 0:
		return DefaultTimeout
	case d > MaxTimeout:
		return MaxTimeout
	}
	return d
}

// noProxy keeps exports off any proxy the environment names: the receiver
// is reached directly.
func noProxy(*http.Request) (*url.URL, error) { return nil, nil }

func (s *Session) traceProvider(endpoint string, res *resource.Resource, seed string) *sdktrace.TracerProvider {
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(endpoint),
		otlptracehttp.WithTimeout(s.timeout), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
		otlptracehttp.WithMaxRequestSize(MaxRequestBytes), otlptracehttp.WithProxy(noProxy))
	if err != nil {
		s.errs.record(err)
		return nil
	}
	limits := sdktrace.NewSpanLimits()
	limits.AttributeValueLengthLimit, limits.AttributeCountLimit = maxValueLen, 32
	limits.EventCountLimit, limits.LinkCountLimit = 8, 0
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithMaxQueueSize(MaxSpans), sdktrace.WithMaxExportBatchSize(512),
			sdktrace.WithBatchTimeout(time.Second), sdktrace.WithExportTimeout(s.timeout)),
		sdktrace.WithResource(res), sdktrace.WithRawSpanLimits(limits),
		sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithIDGenerator(newIDs(seed)))
}

func (s *Session) logProvider(endpoint string, res *resource.Resource) *sdklog.LoggerProvider {
	exp, err := otlploghttp.New(context.Background(), otlploghttp.WithEndpointURL(endpoint),
		otlploghttp.WithTimeout(s.timeout), otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}),
		otlploghttp.WithMaxRequestSize(MaxRequestBytes), otlploghttp.WithProxy(noProxy))
	if err != nil {
		s.errs.record(err)
		return nil
	}
	return sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithAttributeValueLengthLimit(maxValueLen),
		sdklog.WithProcessor(sdklog.NewBatchProcessor(exp, sdklog.WithMaxQueueSize(64), sdklog.WithExportTimeout(s.timeout))))
}

// Tracer starts the session's spans; a no-op tracer when it is disabled.
func (s *Session) Tracer() trace.Tracer { return s.tracer }

// Log emits one log record with body and attributes, at info severity, or
// at error severity when failed.
func (s *Session) Log(ctx context.Context, body string, failed bool, attrs ...attribute.KeyValue) {
	var r otellog.Record
	r.SetTimestamp(time.Now())
	r.SetBody(attribute.StringValue(body))
	r.SetSeverity(otellog.SeverityInfo)
	if failed {
		r.SetSeverity(otellog.SeverityError)
	}
	r.AddAttributes(attrs...)
	s.logger.Emit(ctx, r)
}

// Shutdown exports what is queued and closes the session, returning within
// the session's timeout (plus a few milliseconds of bookkeeping) even when
// the receiver never answers: what is not sent by then is dropped.
func (s *Session) Shutdown() Report {
	rep := Report{Endpoint: s.endpoint}
	if s.tp == nil && s.lp == nil {
		rep.Error = s.errs.first()
		return rep
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, shut := range []func(context.Context) error{s.shutTraces, s.shutLogs} {
		wg.Go(func() { s.errs.record(shut(ctx)) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		s.errs.record(context.DeadlineExceeded)
	}
	rep.Took = time.Since(start)
	rep.Error = s.errs.first()
	return rep
}

func (s *Session) shutTraces(ctx context.Context) error {
	if s.tp == nil {
		return nil
	}
	return s.tp.Shutdown(ctx)
}

func (s *Session) shutLogs(ctx context.Context) error {
	if s.lp == nil {
		return nil
	}
	return s.lp.Shutdown(ctx)
}

// errorSink keeps the first export error of a session.
type errorSink struct {
	mu  sync.Mutex
	err string
}

func (e *errorSink) record(err error) {
	if err == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == "" {
		e.err = err.Error()
	}
}

func (e *errorSink) first() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

var (
	handlerMu sync.Mutex
	handler   *errorSink
	once      sync.Once
)

// setErrorHandler routes the SDK's background export errors to the
// latest session instead of the standard logger's stderr.
func setErrorHandler(sink *errorSink) {
	handlerMu.Lock()
	handler = sink
	handlerMu.Unlock()
	once.Do(func() {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			handlerMu.Lock()
			h := handler
			handlerMu.Unlock()
			h.record(err)
		}))
	})
}

// ids gives root spans the trace ID of the seed, when there is one.
type ids struct{ trace trace.TraceID }

func newIDs(seed string) sdktrace.IDGenerator {
	g := &ids{}
	if seed != "" {
		sum := sha256.Sum256([]byte(seed))
		copy(g.trace[:], sum[:16])
	}
	return g
}

func (g *ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	t := g.trace
	if !t.IsValid() {
		rand.Read(t[:])
	}
	return t, g.NewSpanID(ctx, t)
}

func (g *ids) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	var s trace.SpanID
	for !s.IsValid() {
		rand.Read(s[:])
	}
	return s
}
