package settlement

import (
	"context"
	"fmt"
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
	// states shares the processor's state the turn's holder finds with the others (SharingState;
	// nil: each instance reports what it found itself).
	states ProcessorStates
}

// ProcessorStates keeps the onramp processor's state as the instance holding the turn found it,
// for every instance (pgstore.ProcessorState, in the database).
type ProcessorStates interface {
	// Record writes a pass's finding at at: down is the processor's silence (nil: it answered).
	Record(ctx context.Context, down error, at time.Time) error
	// Read is the last finding recorded (zero: none).
	Read(ctx context.Context) (ProcessorReport, error)
}

// ProcessorReport is the turn's holder's last finding: when it asked, and since when the
// processor has not answered and why (zero and empty: it answered).
type ProcessorReport struct {
	CheckedAt, DownSince time.Time
	Err                  string
}

// staleReports is how many intervals a holder's report is trusted for: past them the holder has
// stopped passing (its turn goes to another within two), and its last finding is not repeated.
const staleReports = 3

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

// SharingState makes the turn's holder record the processor's state at each pass, and the other
// instances report it as their own pass's failure, from the holder's first failure: only the
// holder asks the processor (InTurn), so only its /healthz said the processor was down. It
// returns r; call it before Run.
func (r *OnrampReconciler) SharingState(states ProcessorStates) *OnrampReconciler {
	if states == nil {
		panic("settlement.OnrampReconciler.SharingState: nil states")
	}
	r.states = states
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
	since, failed := r.reconcileOnramp(ctx)
	if tried, delivered, err := r.webhooks.ReconcileMarked(ctx, false); err != nil {
		failed = err
		r.log.Warn().Err(err).Msg("webhook reconciliation")
	} else if tried > 0 {
		r.log.Info().Int("retried", tried).Int("delivered", delivered).Msg("retried marked webhook notifications")
	}
	if ctx.Err() == nil {
		r.fails.record(failed, since, time.Now())
	}
}

// reconcileOnramp verifies the open onramp attempts, when the turn is this instance's (InTurn),
// and returns the pass's failure: the turn's, the reconciliation's, or the processor's silence,
// found here or by the turn's holder (SharingState: then with the start of the holder's run).
func (r *OnrampReconciler) reconcileOnramp(ctx context.Context) (since time.Time, failed error) {
	if r.turn != nil {
		ours, err := r.turn.Take(ctx)
		if err != nil {
			r.log.Warn().Err(err).Msg("reconcile: the turn to verify open onramp attempts")
			return time.Time{}, err
		}
		if !ours {
			r.log.Debug().Msg("reconcile: another instance verifies the open onramp attempts in its turn")
			return r.holdersFinding(ctx)
		}
	}
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
	if err == nil && r.states != nil && ctx.Err() == nil {
		if rerr := r.states.Record(ctx, done.ProcessorDown, time.Now()); rerr != nil {
			r.log.Warn().Err(rerr).Msg("reconcile: the processor's state for the other instances")
		}
	}
	return time.Time{}, failed
}

// holdersFinding is the processor's silence as the turn's holder last recorded it, with its
// start, if recent (staleReports); nil when it answered, or nothing is shared.
func (r *OnrampReconciler) holdersFinding(ctx context.Context) (since time.Time, down error) {
	if r.states == nil {
		return time.Time{}, nil
	}
	got, err := r.states.Read(ctx)
	if err != nil {
		r.log.Warn().Err(err).Msg("reconcile: the processor's state the turn's holder found")
		return time.Time{}, err
	}
	if got.Err == "" || time.Since(got.CheckedAt) > staleReports*r.interval {
		return time.Time{}, nil
	}
	return got.DownSince, fmt.Errorf("the onramp processor does not answer the instance verifying the open attempts (since %s): %s",
		got.DownSince.UTC().Format(time.RFC3339), got.Err)
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

// record notes a pass's outcome at now: a failure starts or extends the run (from since, when
// the failure began earlier: the turn's holder's), a pass that went through ends it.
func (f *passFailures) record(err error, since, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		f.since, f.last, f.err = time.Time{}, time.Time{}, nil
		return
	}
	if f.since.IsZero() {
		f.since = now
	}
	if !since.IsZero() && since.Before(f.since) {
		f.since = since
	}
	f.last, f.err = now, err
}

func (f *passFailures) reading() (since, last time.Time, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.since, f.last, f.err
}
