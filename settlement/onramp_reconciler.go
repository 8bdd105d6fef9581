package settlement

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
)

// MarkedWebhooks retries the webhook notifications marked for another delivery: all of them, or
// only those whose backoff is due.
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

// Run reconciles at every tick until ctx ends, and returns ctx.Err().
func (r *OnrampReconciler) Run(ctx context.Context) error {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			r.pass(ctx)
		}
	}
}

func (r *OnrampReconciler) pass(ctx context.Context) {
	done, err := r.onramp.Handle(r.log.WithContext(ctx), commands.ReconcileOnramp{MinAge: r.minAge})
	if err != nil {
		r.log.Warn().Err(err).Msg("reconcile")
	} else if done.Checked > 0 {
		r.log.Info().Int("checked", done.Checked).Int("updated", done.Updated).Msg("reconciled open onramp attempts")
	}
	if tried, delivered, err := r.webhooks.ReconcileMarked(ctx, false); err != nil {
		r.log.Warn().Err(err).Msg("webhook reconciliation")
	} else if tried > 0 {
		r.log.Info().Int("retried", tried).Int("delivered", delivered).Msg("retried marked webhook notifications")
	}
}
