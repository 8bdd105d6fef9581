package webhooks

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
)

// EventRetention is how long the merchants' event log and the webhook delivery tables are kept
// (docs/webhooks.md, "Retention"): 30 days, as Stripe keeps events. A webhook is retried for 3
// days, so everything pruned was delivered or given up long before; a stream resuming from an id
// older than what is kept is refused (GET /api/webhooks/stream).
const EventRetention = readmodels.EventRetention

// RetentionInterval is the pace of the retention worker; each step deletes at most
// retentionRounds batches of retentionBatch rows of each table, so a step is bounded and a
// backlog (the first run after an upgrade) is worked off over several steps.
const (
	RetentionInterval = time.Minute
	retentionBatch    = 1000
	retentionRounds   = 10
)

// Retention prunes what EventRetention no longer keeps: the event log from its start with its
// endpoint messages and attempts, endpoints deleted that long ago once those are gone, closed receipt webhook notifications with their delivery log,
// and closed subscription webhooks. Nothing pruned them before: every table grew for ever. Its
// Step is a stepped worker's (cmd/payledger/app): one instance prunes at a time (the others'
// steps do nothing); a log that cannot be pruned because its oldest event is still owed to an
// endpoint is a failed step, so /healthz names the worker stuck if it lasts.
type Retention struct {
	Endpoints     *readmodels.Endpoints
	Outbox        *readmodels.Outbox
	Subscriptions *readmodels.SubscriptionWebhooks // nil: none pruned
	Log           zerolog.Logger
	Now           func() time.Time // nil: time.Now
	Keep          time.Duration    // 0: EventRetention
}

// Step prunes one bounded pass. It reports progress unless the log's oldest event is past the
// retention and still owed to an endpoint (then an error says which).
func (r *Retention) Step(ctx context.Context) (bool, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	cutoff := now().Add(-cmp.Or(r.Keep, EventRetention))
	var events, notes, subs, endpoints int
	var last readmodels.Pruned
	for range retentionRounds {
		p, err := r.Endpoints.PruneEvents(ctx, cutoff, retentionBatch)
		if err != nil {
			return false, err
		}
		events, last = events+p.Rows, p
		if p.Rows < retentionBatch {
			break
		}
	}
	prune := func(f func(context.Context, time.Time, int) (readmodels.Pruned, error)) (int, error) {
		n := 0
		for range retentionRounds {
			p, err := f(ctx, cutoff, retentionBatch)
			if n += p.Rows; err != nil || p.Rows < retentionBatch {
				return n, err
			}
		}
		return n, nil
	}
	notes, err := prune(r.Outbox.PruneNotifications)
	if err == nil && r.Subscriptions != nil {
		subs, err = prune(r.Subscriptions.Prune)
	}
	// Endpoints deleted before cutoff go once PruneEvents took their messages and attempts (last:
	// a failure here holds back none of the others).
	if err == nil {
		endpoints, err = prune(r.Endpoints.PruneDeletedEndpoints)
	}
	if events+notes+subs+endpoints > 0 {
		r.Log.Info().Int("events", events).Int("notifications", notes).Int("subscription_webhooks", subs).Int("endpoints", endpoints).
			Int64("pruned_through", last.Through).Time("cutoff", cutoff).Msg("webhook retention pruned")
	}
	if err != nil {
		return false, err
	}
	if last.Blocked {
		return false, fmt.Errorf("webhook retention: the oldest event after position %d is older than %s and still owed to an endpoint (a pending message): the log is pruned no further until it is delivered or given up",
			last.Through, cmp.Or(r.Keep, EventRetention))
	}
	return true, nil
}
