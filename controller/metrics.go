package controller

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the controller's Prometheus metrics, served with
// controller-runtime's own (reconciles, work queue, client requests) at
// Options.MetricsAddr.
type Metrics struct {
	passes   *prometheus.CounterVec
	duration prometheus.Histogram
	plans    *prometheus.CounterVec
	runs     *prometheus.CounterVec
}

// NewMetrics registers the controller's metrics with reg. A collector reg
// already has (a second controller in one process) is shared.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "piceli_controller_passes_total", Help: "Passes over a Release, by result (ok, error).",
		}, []string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "piceli_controller_pass_duration_seconds", Help: "How long a pass over a Release took, applying included.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}),
		plans: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "piceli_controller_plans_total", Help: "Plans made, by whether they change anything.",
		}, []string{"changed"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "piceli_controller_runs_total", Help: "Runs of approved plans, by outcome (finished, failed, stopped, compensated, lock-held, refused).",
		}, []string{"outcome"}),
	}
	m.passes = register(reg, m.passes)
	m.duration = register(reg, m.duration)
	m.plans = register(reg, m.plans)
	m.runs = register(reg, m.runs)
	return m
}

// register registers c with reg, or returns the equal collector reg has.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var dup prometheus.AlreadyRegisteredError
		if errors.As(err, &dup) {
			if existing, ok := dup.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}

func (m *Metrics) reconciled(d time.Duration, err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.passes.WithLabelValues(result).Inc()
	m.duration.Observe(d.Seconds())
}

func (m *Metrics) planned(changed bool) {
	if m == nil {
		return
	}
	v := "false"
	if changed {
		v = "true"
	}
	m.plans.WithLabelValues(v).Inc()
}

func (m *Metrics) ran(outcome string) {
	if m != nil {
		m.runs.WithLabelValues(outcome).Inc()
	}
}
