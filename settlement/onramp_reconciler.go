package settlement

import (
	"context"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
)

// MarkedWebhooks retries the webhook notifications marked for another delivery: all of them, or
// only those whose backoff is due (with the dispatcher's workers running, they do that under the
// per-merchant share, and the call for the due ones returns at once).
type MarkedWebhooks interface {
	ReconcileMarked(ctx context.Context, all bool) (tried, delivered int, err error)
}

// OnrampReconciler is the scheduled reconciliation in the background: every interval it verifies
// the onramp attempts open for longer than minAge and retries the marked webhook notifications
// whose backoff is due (POST /api/cron/reconcile does both at once, for everything).
type OnrampReconciler struct {
	onramp   commands.Handler[commands.ReconcileOnramp, commands.Reconciled]
	webhooks MarkedWebhooks
	interval time.Duration
	minAge   time.Duration
	log      zerolog.Logger
	fails    passFailures
	// turn makes one instance at a time verify the attempts (InTurn; nil: every instance does).
	turn AskTurn
}

// NewOnrampReconciler returns the worker. It panics on a nil dependency or a non-positive
// interval.
func NewOnrampReconciler(onramp commands.Handler[commands.ReconcileOnramp, commands.Reconciled], webhooks MarkedWebhooks,
	interval, minAge time.Duration, log zerolog.Logger) *OnrampReconciler {
	if onramp == nil || webhooks == nil || interval <= 0 {
		panic("settlement.NewOnrampReconciler: nil dependency or no interval")
	}
	return &OnrampReconciler{onramp: onramp, webhooks: webhooks, interval: interval, minAge: minAge, log: log}
}

// InTurn makes one instance at a time verify the open onramp attempts: every instance runs the
// reconciler, and each asked the processor about every open attempt once per interval (n
// instances, n asks). The instance whose turn it is keeps it from pass to pass, until its Run
// ends or its session is lost; the others skip the attempts (logged at debug; not a failure) and
// still retry the marked webhooks, which are claimed with a lease and so tried once. It returns
// r; call it before Run.
func (r *OnrampReconciler) InTurn(turn AskTurn) *OnrampReconciler {
	if turn == nil {
		panic("settlement.OnrampReconciler.InTurn: nil turn")
	}
	r.turn = turn
	return r
}

// Run reconciles at every tick until ctx ends, and returns ctx.Err(). The turn, if held, is given
// back as it returns, so that another instance takes it at its next pass.
func (r *OnrampReconciler) Run(ctx context.Context) error {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	defer r.giveTurn()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			r.Pass(ctx)
		}
	}
}

// Pass runs one pass, as Run does at every tick: the open onramp attempts (in this instance's turn
// with InTurn), then the marked webhooks whose backoff is due; its outcome is what Failing reads.
func (r *OnrampReconciler) Pass(ctx context.Context) {
	failed := r.reconcileOnramp(ctx)
	if tried, delivered, err := r.webhooks.ReconcileMarked(ctx, false); err != nil {
		failed = err
		r.log.Warn().Err(err).Msg("webhook reconciliation")
	} else if tried > 0 {
		r.log.Info().Int("retried", tried).Int("delivered", delivered).Msg("retried marked webhook notifications")
	}
	if ctx.Err() == nil {
		r.fails.record(failed, time.Now())
	}
}

// reconcileOnramp verifies the open onramp attempts, when the turn is this instance's (InTurn),
// and returns the pass's failure: the turn's, the reconciliation's, or the processor's silence.
func (r *OnrampReconciler) reconcileOnramp(ctx context.Context) error {
	if r.turn != nil {
		ours, err := r.turn.Take(ctx)
		if err != nil {
			r.log.Warn().Err(err).Msg("reconcile: the turn to verify open onramp attempts")
			return err
		}
		if !ours {
			r.log.Debug().Msg("reconcile: another instance verifies the open onramp attempts in its turn")
			return nil
		}
	}
	var failed error
	done, err := r.onramp.Handle(r.log.WithContext(ctx), commands.ReconcileOnramp{MinAge: r.minAge})
	switch {
	case err != nil:
		failed = err
		r.log.Warn().Err(err).Msg("reconcile")
	case done.ProcessorDown != nil:
		failed = done.ProcessorDown
		r.log.Warn().Err(done.ProcessorDown).Int("checked", done.Checked).Int("unasked", done.Unasked).Msg("reconcile: the onramp processor does not answer")
	case done.Checked > 0:
		r.log.Info().Int("checked", done.Checked).Int("updated", done.Updated).Msg("reconciled open onramp attempts")
	}
	return failed
}

// giveTurn gives the turn back, if any.
func (r *OnrampReconciler) giveTurn() {
	if r.turn != nil {
		r.turn.Give()
	}
}

// Failing is the run of failed passes the reconciler is in: since its first, the latest at last
// with err (zero times and nil when its last pass went through). A pass fails when the processor
// did not answer it (commands.Reconciled.ProcessorDown: down, a server error, the service's key
// refused), its work list could not be read, or the marked webhooks could not be retried. The
// app's health marks the worker stuck once the run lasts a minute, naming the error: a processor
// that was down left /healthz ok while no open card or bank payment was verified, each pass only
// logging a warning per receipt. Times are on the wall clock, as the health's.
func (r *OnrampReconciler) Failing() (since, last time.Time, err error) {
	return r.fails.reading()
}

// passFailures is the reconciler's run of failed passes.
type passFailures struct {
	mu          sync.Mutex
	since, last time.Time
	err         error
}

// record notes a pass's outcome at now: a failure starts or extends the run, a pass that went
// through ends it.
func (f *passFailures) record(err error, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		f.since, f.last, f.err = time.Time{}, time.Time{}, nil
		return
	}
	if f.since.IsZero() {
		f.since = now
	}
	f.last, f.err = now, err
}

func (f *passFailures) reading() (since, last time.Time, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.since, f.last, f.err
}
