// Package telemetry sends a run's trace and its result log record to an
// OTLP/HTTP receiver within a hard bound: a bounded queue and request
// size, one export timeout (DefaultTimeout, at most MaxTimeout), no
// retries, and a Shutdown that returns within that timeout whatever the
// receiver does. It never fails its caller: an unusable or silent
// receiver only shows in the Report.
package telemetry
