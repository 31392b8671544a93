package spec

import "time"

// Check is a post-release check, as [[checks]] declares it: exactly one of
// HTTP, TCP, Command and Job is set. Checks are validated here and run
// elsewhere (internal/check), after the last wave of every run and by
// `piceli release check`, in declaration order.
type Check struct {
	Name string
	// Timeout bounds one attempt: an HTTP request or a TCP connect through
	// a port-forward, a command's whole run, a Job's run to completion
	// (given to the Job as activeDeadlineSeconds). Defaults per kind:
	// DefaultHTTPTimeout, DefaultTCPTimeout, DefaultCommandTimeout,
	// DefaultJobTimeout.
	Timeout time.Duration
	// Retries is how many more attempts follow a failed one (0: none). It
	// defaults to DefaultNetworkRetries for http and tcp checks and to 0
	// for command and job checks.
	Retries int
	// Backoff is the pause before the first retry, doubled before each
	// next one; DefaultBackoff when not set.
	Backoff time.Duration

	HTTP    *HTTPCheck
	TCP     *TCPCheck
	Command *CommandCheck
	Job     *JobCheck
}

// The kinds of check, as Check.Kind names them.
const (
	CheckHTTP    = "http"
	CheckTCP     = "tcp"
	CheckCommand = "command"
	CheckJob     = "job"
)

// Defaults of a check's timing.
const (
	DefaultHTTPTimeout    = 10 * time.Second
	DefaultTCPTimeout     = 5 * time.Second
	DefaultCommandTimeout = time.Minute
	DefaultJobTimeout     = 5 * time.Minute
	DefaultNetworkRetries = 2
	DefaultBackoff        = time.Second
)

// Bounds of a check's timing, so that a typo cannot hang a run for days.
const (
	MaxCheckTimeout = time.Hour
	MaxCheckRetries = 20
	MaxCheckBackoff = 5 * time.Minute
)

// Kind names the check's kind: CheckHTTP, CheckTCP, CheckCommand or
// CheckJob.
func (c Check) Kind() string {
	switch {
	case c.HTTP != nil:
		return CheckHTTP
	case c.TCP != nil:
		return CheckTCP
	case c.Command != nil:
		return CheckCommand
	case c.Job != nil:
		return CheckJob
	}
	return ""
}

// HTTPCheck sends a request to a Service port through a port-forward and
// expects a status code and, optionally, something in the body.
type HTTPCheck struct {
	Service      string
	Port         int    // a port of the Service (its port, not the target port)
	Path         string // starts with "/"; defaults to "/"
	ExpectStatus int    // 100-599; defaults to 200
	Method       string // an HTTP method, upper case; defaults to GET
	// Headers are sent with the request. They are never printed,
	// journaled or put in an excerpt: a header may carry a token.
	Headers map[string]string
	// BodyContains, when set, must occur in the response body.
	BodyContains string
	// BodyRegexp, when set, must match the response body (Go syntax,
	// validated when the spec is read).
	BodyRegexp string
}

// TCPCheck opens a connection to a Service port through a port-forward.
type TCPCheck struct {
	Service string
	Port    int
}

// CommandCheck runs a local command, without a shell, with every forwarded
// Service port in its environment as PICELI_<SERVICE>_<PORT>_ADDR
// (127.0.0.1:N). Exit status 0 passes.
type CommandCheck struct {
	// Run is the program and its arguments. A program with a slash is
	// relative to Dir; one without is looked up in $PATH.
	Run []string
	Dir string // absolute working directory; defaults to the spec's directory
	// Services names the Services to forward (every port of each); nil
	// forwards every Service of the release that has a ready pod.
	Services []string
}

// JobCheck runs a Job to completion in the target namespace and keeps the
// tail of its logs: a copy of a Job of the composition (From), or one the
// check declares (Image, Command, Args). The Job is deleted afterwards.
type JobCheck struct {
	From    string   // the name of a Job of the composition to run a fresh copy of
	Image   string   // an image reference, or a key of [images]
	Command []string // the container's command (entrypoint); empty keeps the image's
	Args    []string
	// Annotations are added to the Job's pod template (for example to keep
	// a service mesh's sidecar out of a Job that must finish).
	Annotations map[string]string
}
