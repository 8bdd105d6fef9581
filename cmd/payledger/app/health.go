package app

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/panics"
)

// Health is what the background workers report (DESIGN 10, "nothing stops in silence"): each
// records its last successful step and its last error. A worker that has made no progress for
// stallSteps of its intervals while it has work is stuck: GET /healthz answers degraded naming
// it, and its error is logged once a minute until it recovers. (A second `make run` on the same
// database once left deposit detection and sweeps stopped without a single log line.)
type Health struct {
	now func() time.Time
	log zerolog.Logger
	// restartAfter is how long a worker whose Run failed or panicked waits to run again
	// (restartAfter; tests shorten it).
	restartAfter time.Duration
	// failingFor is how long a watched worker may report a run of failures of its own
	// (Runner.Failing: a projector's batch retried each second) before it is stuck (failingFor;
	// tests shorten it).
	failingFor time.Duration

	mu      sync.Mutex
	workers map[string]*workerHealth
	// leaders are the workers that run on one instance at a time (the projectors' leader locks,
	// charging on the subscriptions projector's leader), by name: /healthz says which this
	// instance leads, so an operator of several instances knows where each job runs.
	leaders map[string]func() bool
}

// Stall rules: stuck after stallSteps intervals without progress, but never sooner than
// minStall (a 1 s poll of a chain that seals a block every 12 s makes no progress for 12 s and
// is not stuck); a stuck worker's error is logged every stuckLogEvery; a worker whose Run
// returned an error is started again after restartAfter; a watched worker whose own retries have
// failed for failingFor is stuck.
const (
	stallSteps    = 10
	minStall      = 30 * time.Second
	stuckLogEvery = time.Minute
	restartAfter  = time.Minute
	failingFor    = time.Minute
)

// workerHealth is one worker's record.
type workerHealth struct {
	interval     time.Duration
	started      time.Time
	lastStep     time.Time // the last step that succeeded
	lastProgress time.Time // the last step that did something, or found nothing to do
	lastErr      error
	lastErrAt    time.Time
	stopped      bool      // Run returned an error; it is started again after restartAfter
	failing      bool      // its last run on its own schedule failed (Ran): stuck until one goes through
	restartedAt  time.Time // when a stopped worker was started again (zero: not since it stopped)
	watched      bool      // its loop is its own (Watch): only a stop is seen, not its steps
	running      bool      // Run was called: a worker nobody runs (a test's) is never stuck
	stuck        bool
	loggedAt     time.Time
	panicLogged  time.Time // a panic's stack is logged once per stuckLogEvery (a step may panic at every tick)
	// failures reads a watched worker's run of failures that it retries itself (a projector's
	// Runner.Failing): nil for the others.
	failures func() (since, last time.Time, err error)
	// failingFor is this worker's own bound for failures (failingBound), else Health's.
	failingFor *time.Duration
}

// failingWorker is a watched worker that retries its failures itself and reports them: a
// projector's Runner, whose batch that fails the same way on every retry never ends its Run.
type failingWorker interface {
	Failing() (since, last time.Time, err error)
}

// NewHealth returns an empty record on now's clock; log is where stuck workers are reported.
func NewHealth(now func() time.Time, log zerolog.Logger) *Health {
	return &Health{now: now, log: log, restartAfter: restartAfter, failingFor: failingFor, workers: map[string]*workerHealth{}, leaders: map[string]func() bool{}}
}

// WorkerStatus is a worker's record as /healthz shows it.
type WorkerStatus struct {
	Name         string    `json:"name"`
	LastStep     time.Time `json:"lastStep,omitzero"`
	LastError    string    `json:"lastError,omitempty"`
	LastErrorAt  time.Time `json:"lastErrorAt,omitzero"`
	Stuck        bool      `json:"stuck"`
	IntervalSecs float64   `json:"intervalSeconds"`
}

// register starts a worker's record.
func (h *Health) register(name string, interval time.Duration, watched bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	h.workers[name] = &workerHealth{interval: interval, started: now, lastProgress: now, watched: watched}
}

// start records that a worker's Run began: its stall window starts now.
func (h *Health) start(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w := h.workers[name]; w != nil {
		now := h.now()
		w.running, w.started, w.lastProgress, w.stopped = true, now, now, false
	}
}

// stepped records a step's outcome: progressed is whether it did something or had nothing to do
// (no work); err its failure.
func (h *Health) stepped(name string, progressed bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w, now := h.workers[name], h.now()
	if w == nil {
		return
	}
	if err != nil {
		if w.lastErrAt.IsZero() || w.lastErrAt.Before(w.lastStep) { // the first of a run of failures
			h.log.Warn().Err(err).Str("worker", name).Msg("background worker step failed; retrying")
		}
		w.lastErr, w.lastErrAt = err, now
	} else {
		w.lastStep = now
		w.stopped = false
	}
	if err == nil && progressed {
		w.lastProgress = now
	}
	h.judge(name, w, now)
}

// judge marks the worker stuck or recovered, and logs its error once a minute while it is stuck.
// A stopped worker started again has recovered once that run has lasted its stall window without
// failing (a watched worker reports no steps: before, one failure, such as usage's flushes while
// the database was down, left it stuck, logged every minute, until the process restarted).
func (h *Health) judge(name string, w *workerHealth, now time.Time) {
	if w.stopped && !w.restartedAt.IsZero() && now.Sub(w.restartedAt) >= max(stallSteps*w.interval, minStall) {
		w.stopped = false
	}
	failingSince := h.failingLong(w, now)
	stuck := w.running && (w.stopped || w.failing || !failingSince.IsZero() ||
		(!w.watched && now.Sub(w.lastProgress) >= max(stallSteps*w.interval, minStall)))
	switch {
	case stuck && (!w.stuck || now.Sub(w.loggedAt) >= stuckLogEvery):
		ev := h.log.Error().Str("worker", name).Time("last_step", w.lastStep).Dur("no_progress_for", now.Sub(w.lastProgress))
		if !failingSince.IsZero() {
			ev = ev.Time("failing_since", failingSince)
		}
		if w.lastErr != nil {
			ev = ev.Err(w.lastErr).Time("last_error_at", w.lastErrAt)
		}
		ev.Msg("background worker stuck")
		w.loggedAt = now
	case !stuck && w.stuck:
		h.log.Info().Str("worker", name).Msg("background worker recovered")
	}
	w.stuck = stuck
}

// failingLong is when the run of failures of a worker that retries them itself (failures) began,
// if it has lasted failingFor: it is stuck, and its latest failure is its last error. Zero
// otherwise. A projector whose batch failed the same way every second (a stray receipts row, a
// stored state that no longer decodes) logged each retry while /healthz said ok: only a Run that
// returned was seen.
func (h *Health) failingLong(w *workerHealth, now time.Time) time.Time {
	if w.failures == nil {
		return time.Time{}
	}
	since, last, err := w.failures()
	bound := h.failingFor
	if w.failingFor != nil {
		bound = *w.failingFor
	}
	if since.IsZero() || now.Sub(since) < bound {
		return time.Time{}
	}
	if err != nil {
		w.lastErr, w.lastErrAt = err, last
	}
	return since
}

// Ran records the outcome of a run a watched worker makes on its own schedule (the daily
// subscription charging run): one that failed (err) marks it stuck at once, its error logged once
// a minute, until it reports one that went through (nil). Its own loop goes on meanwhile, so
// Watch alone never saw such a failure: a node down at charge time left /healthz ok.
func (h *Health) Ran(name string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w, now := h.workers[name], h.now()
	if w == nil {
		return
	}
	if err != nil {
		w.lastErr, w.lastErrAt = err, now
	} else {
		w.lastStep = now
	}
	w.failing = err != nil
	h.judge(name, w, now)
}

// Stuck names the workers stuck now, sorted (GET /healthz answers degraded while any is).
func (h *Health) Stuck() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for name, w := range h.workers {
		if w.stuck {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Workers are every worker's record, sorted by name.
func (h *Health) Workers() []WorkerStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]WorkerStatus, 0, len(h.workers))
	for name, w := range h.workers {
		s := WorkerStatus{Name: name, LastStep: w.lastStep, Stuck: w.stuck, IntervalSecs: w.interval.Seconds()}
		if w.lastErr != nil {
			s.LastError, s.LastErrorAt = w.lastErr.Error(), w.lastErrAt
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Step is one pass of a stepped worker: progressed says it did something or found nothing to do.
type Step func(ctx context.Context) (progressed bool, err error)

// Every is a worker that runs step every interval and records each outcome: the app drives the
// settlement processes' passes itself, so that each one's progress is seen.
func (h *Health) Every(name string, interval time.Duration, step Step) Worker {
	h.register(name, interval, false)
	return workerFunc(func(ctx context.Context) error {
		return h.supervise(ctx, name, func(ctx context.Context) error { return h.loop(ctx, name, interval, step) })
	})
}

// Stepped registers a worker whose set-up (a dial, a deployment) comes before its steps: run
// does the set-up and then loop(ctx, step) until ctx ends. A set-up that fails is run again
// after restartAfter, as a watched worker is.
func (h *Health) Stepped(name string, interval time.Duration, run func(ctx context.Context, loop func(context.Context, Step) error) error) Worker {
	h.register(name, interval, false)
	return workerFunc(func(ctx context.Context) error {
		return h.supervise(ctx, name, func(ctx context.Context) error {
			return run(ctx, func(ctx context.Context, step Step) error { return h.loop(ctx, name, interval, step) })
		})
	})
}

// loop runs step every interval until ctx ends, recording each outcome; a step that panics is a
// failed step (protect), and the next one runs at the next tick.
func (h *Health) loop(ctx context.Context, name string, interval time.Duration, step Step) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		var progressed bool
		err := h.protect(name, func() (err error) {
			progressed, err = step(ctx)
			return err
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		h.stepped(name, progressed, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// failingBound is a failingWorker whose run of failures is stuck after its own bound, not
// Health's minute: the cache listener's (0, at once), whose caches are off, on this instance,
// for as long as it fails; an operator reads /healthz for what is wrong now, and a silence that
// heals within seconds clears at the next probe heard (/healthz stays 200 while degraded).
type failingBound interface {
	FailingFor() time.Duration
}

// Watch is a worker whose own loop runs inside Run (projectors, the dispatcher, charging): its
// record says whether it runs. A Run that returns an error or panics marks it stuck at once
// (logged), and it is started again after restartAfter, until its context ends. One that retries
// its failures itself and reports them (failingWorker: a projector's Runner) is stuck once they
// have gone on for failingFor without a success, and recovers when they end.
func (h *Health) Watch(name string, w Worker) Worker {
	h.register(name, restartAfter/stallSteps, true)
	if f, ok := w.(failingWorker); ok {
		h.mu.Lock()
		h.workers[name].failures = f.Failing
		if b, ok := w.(failingBound); ok {
			d := b.FailingFor()
			h.workers[name].failingFor = &d
		}
		h.mu.Unlock()
	}
	if l, ok := w.(interface{ Leader() bool }); ok {
		h.LeadsWhen(name, l.Leader)
	}
	return workerFunc(func(ctx context.Context) error { return h.supervise(ctx, name, w.Run) })
}

// LeadsWhen records that the worker name runs on one instance at a time, on this one while
// leads says so (Watch records a worker with a Leader method itself).
func (h *Health) LeadsWhen(name string, leads func() bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.leaders[name] = leads
}

// Leading names, sorted, the one-instance workers this instance runs now (empty on a standby).
func (h *Health) Leading() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for name, leads := range h.leaders {
		if leads() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// supervise runs a worker's run until ctx ends: a run that returns an error or panics is
// recorded (stopped: stuck at once, logged) and started again after restartAfter; a run that
// returns nil while ctx lasts has nothing to do on this instance (an optional capability that is
// off). The worker's goroutine never panics: a panic there would end the process, with every
// request in flight, and the next start would meet the same panic.
func (h *Health) supervise(ctx context.Context, name string, run func(ctx context.Context) error) error {
	h.start(name)
	// A panic in a goroutine the worker starts itself (a webhook attempt) is recovered where it
	// is launched (internal/panics) and counted here as the worker's failure.
	ctx = panics.WithHandler(ctx, func(r any, stack []byte) { h.goroutinePanicked(name, r, stack) })
	for {
		err := h.protect(name, func() error { return run(ctx) })
		if ctx.Err() != nil {
			return err // the end of serve (a usage flush's error is still serve's to log)
		}
		if err == nil {
			return nil
		}
		h.stopped(name, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(h.restartAfter):
		}
		h.restarted(name)
	}
}

// protect calls f and turns its panic into an error, logging the panic with its stack (once per
// stuckLogEvery for the worker).
func (h *Health) protect(name string, f func() error) error {
	err := panics.Run(f)
	if p, ok := err.(*panics.Error); ok {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.logPanic(name, p.Value, p.Stack)
	}
	return err
}

// logPanic logs a worker's panic with its stack, once per stuckLogEvery for the worker; h.mu held.
func (h *Health) logPanic(name string, r any, stack []byte) {
	if w, now := h.workers[name], h.now(); w == nil || w.panicLogged.IsZero() || now.Sub(w.panicLogged) >= stuckLogEvery {
		h.log.Error().Str("worker", name).Str("panic", fmt.Sprint(r)).Str("stack", string(stack)).
			Msg("background worker panicked")
		if w != nil {
			w.panicLogged = now
		}
	}
}

// goroutinePanicked records a panic recovered in a goroutine the worker started (the worker
// itself goes on): logged with its stack, and the worker is stuck at once, as if it had stopped
// and been started again now; it recovers after its stall window without another failure.
func (h *Health) goroutinePanicked(name string, r any, stack []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logPanic(name, r, stack)
	w, now := h.workers[name], h.now()
	if w == nil {
		return
	}
	w.lastErr, w.lastErrAt, w.stopped, w.restartedAt = fmt.Errorf("panic: %v", r), now, true, now
	h.judge(name, w, now)
}

// stopped records that a watched worker's Run returned err.
func (h *Health) stopped(name string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.workers[name]
	if w == nil || errors.Is(err, context.Canceled) {
		return
	}
	w.lastErr, w.lastErrAt, w.stopped, w.restartedAt = err, h.now(), true, time.Time{}
	h.judge(name, w, h.now())
}

// restarted records that a stopped worker was started again.
func (h *Health) restarted(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w := h.workers[name]; w != nil {
		w.restartedAt = h.now()
	}
}

// Check judges every worker now (a stuck worker that makes no step, such as one blocked in a
// call, is found by the clock): /healthz and the once-a-minute log call it.
func (h *Health) Check() []string {
	h.mu.Lock()
	now := h.now()
	for name, w := range h.workers {
		h.judge(name, w, now)
	}
	h.mu.Unlock()
	return h.Stuck()
}

// monitorEvery is how often Monitor judges the workers.
const monitorEvery = 5 * time.Second

// Monitor is the worker that judges every worker every monitorEvery, so that a worker blocked
// inside a step is found and logged once a minute without a /healthz request.
func (h *Health) Monitor() Worker {
	return workerFunc(func(ctx context.Context) error {
		t := time.NewTicker(monitorEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				h.Check()
			}
		}
	})
}
