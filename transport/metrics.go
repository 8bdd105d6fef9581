package transport

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/payledger/payledger/readmodels"
)

// Metrics are the service's Prometheus metrics, on their own registry (no global state).
type Metrics struct {
	Registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	limited     *prometheus.CounterVec
	deliveries  *prometheus.CounterVec
	degraded    prometheus.Gauge
	gaugeSource GaugeSource
}

// GaugeSource answers the gauges computed at scrape time.
type GaugeSource interface {
	// ProjectionLag is how many events a projector has not applied yet and how old the oldest is.
	ProjectionLag(ctx context.Context) (map[string]readmodels.ProjectionLagFigures, error)
	// OutboxDepth counts webhook notifications by state.
	OutboxDepth(ctx context.Context) (map[string]int64, error)
}

// NewMetrics registers the metrics; src may be nil (no scrape-time gauges).
func NewMetrics(src GaugeSource) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "payledger_http_requests_total", Help: "HTTP requests by route, method and status."},
			[]string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "payledger_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}}, []string{"route", "method"}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "payledger_rate_limit_rejections_total", Help: "Requests refused with 429, by limit kind."},
			[]string{"kind"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "payledger_webhook_deliveries_total", Help: "Webhook delivery attempts by outcome."},
			[]string{"outcome"}),
		degraded:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "payledger_degraded", Help: "1 while the datastore does not answer."}),
		gaugeSource: src,
	}
	reg.MustRegister(m.requests, m.latency, m.limited, m.deliveries, m.degraded,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if src != nil {
		reg.MustRegister(&scrapeCollector{src: src,
			lagEvents:  prometheus.NewDesc("payledger_projection_lag_events", "Events a projector has not applied yet.", []string{"projector"}, nil),
			lagSeconds: prometheus.NewDesc("payledger_projection_lag_seconds", "Age of the oldest event a projector has not applied.", []string{"projector"}, nil),
			outbox:     prometheus.NewDesc("payledger_webhook_outbox_depth", "Webhook notifications by state.", []string{"state"}, nil),
		})
	}
	return m
}

// scrapeCollector reads the database-backed gauges when Prometheus scrapes.
type scrapeCollector struct {
	src                           GaugeSource
	lagEvents, lagSeconds, outbox *prometheus.Desc
}

func (c *scrapeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lagEvents
	ch <- c.lagSeconds
	ch <- c.outbox
}

func (c *scrapeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if lags, err := c.src.ProjectionLag(ctx); err == nil {
		for name, l := range lags {
			ch <- prometheus.MustNewConstMetric(c.lagEvents, prometheus.GaugeValue, float64(l.Events), name)
			ch <- prometheus.MustNewConstMetric(c.lagSeconds, prometheus.GaugeValue, l.Seconds, name)
		}
	}
	if depth, err := c.src.OutboxDepth(ctx); err == nil {
		for _, st := range []string{"pending", "retrying", "marked", "delivered", "failed"} {
			ch <- prometheus.MustNewConstMetric(c.outbox, prometheus.GaugeValue, float64(depth[st]), st)
		}
	}
}

// ObserveJournal exports the degraded-mode journal's replay figures, read from figures at scrape
// time: entries waiting in the journal, entries backing off after a failed replay, and failed
// replays ever.
func (m *Metrics) ObserveJournal(figures func() (pending, failing int64, failures uint64)) {
	m.Registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "payledger_journal_entries", Help: "Orders accepted in degraded mode and not yet stored in the event store."},
			func() float64 { p, _, _ := figures(); return float64(p) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "payledger_journal_failing_entries", Help: "Journal entries whose replay failed while the datastore answered; retried with backoff."},
			func() float64 { _, f, _ := figures(); return float64(f) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "payledger_journal_replay_failures_total", Help: "Failed replays of a journal entry while the datastore answered."},
			func() float64 { _, _, n := figures(); return float64(n) }),
	)
}

// routedMethods are the methods the method label may take; anything else is "other", so a
// client inventing method names cannot create series (issue 30: 2,000 random methods made 32,000).
var routedMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true,
	http.MethodPut: true, http.MethodDelete: true, http.MethodOptions: true}

// methodLabel is method if a route could have it, else "other".
func methodLabel(method string) string {
	if routedMethods[method] {
		return method
	}
	return "other"
}

// observe records a finished request.
func (m *Metrics) observe(route, method string, status int, took time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	method = methodLabel(method)
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route, method).Observe(took.Seconds())
}

// Delivered counts a webhook delivery attempt's outcome.
func (m *Metrics) Delivered(outcome string) {
	if m != nil {
		m.deliveries.WithLabelValues(outcome).Inc()
	}
}

func (m *Metrics) setDegraded(down bool) {
	if down {
		m.degraded.Set(1)
	} else {
		m.degraded.Set(0)
	}
}

// metricsHandler serves /metrics, behind METRICS_TOKEN (bearer) when it is set.
func (s *Server) metricsHandler() echo.HandlerFunc {
	h := promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{})
	return func(c echo.Context) error {
		if tok := s.cfg.MetricsToken; tok != "" {
			got := c.Request().Header.Get("Authorization")
			if subtle.ConstantTimeCompare([]byte(got), []byte("Bearer "+tok)) != 1 {
				return NewError(http.StatusUnauthorized, "unauthorized", "Missing or invalid metrics token")
			}
		}
		h.ServeHTTP(c.Response(), c.Request())
		return nil
	}
}

// MetricsHandler serves the metrics for a separate listener (METRICS_ADDR), without a token:
// that listener's address is the operator's access control.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{})
}
