package webhooks

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/readmodels"
)

// TestARedeliveryClosesANotificationWhoseLeaseRanOut: a successful manual redelivery closes the
// notification when the lease on it has run out (an instance stopped mid-attempt), and a late
// completion under that lease changes nothing; one under a live lease is left to its sender. The
// run-out lease kept it open: it was claimed and sent again once due, and the status read said
// pending meanwhile.
func TestARedeliveryClosesANotificationWhoseLeaseRanOut(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = -1 })
	r := newReceiver(t, http.StatusOK, false)
	ctx := context.Background()
	for _, c := range []struct {
		id, lease string
		want      string
	}{
		{"rd-expired", "now() - interval '1 minute'", readmodels.NoteDelivered},
		{"rd-live", "now() + interval '1 minute'", readmodels.NoteMarked},
	} {
		w.paidReceipt(t, c.id, r.srv.URL, "plk_secret")
		stale := uuid.New()
		if _, err := w.pool.Exec(ctx, `UPDATE webhook_notifications SET state = 'marked', attempts = 2, marked_at = now(),
			next_attempt_at = now() + interval '1 hour', lease_token = $2, lease_until = `+c.lease+` WHERE receipt_id = $1`, c.id, stale); err != nil {
			t.Fatal(err)
		}
		var n readmodels.Claimed
		if err := w.pool.QueryRow(ctx, `SELECT id, receipt_id, merchant_wallet, url, queued_key, state FROM webhook_notifications
			WHERE receipt_id = $1`, c.id).Scan(&n.ID, &n.ReceiptID, &n.Merchant, &n.URL, &n.QueuedKey, &n.State); err != nil {
			t.Fatal(err)
		}
		if a, err := w.disp.Redeliver(ctx, n); err != nil || a.Error != "" {
			t.Fatalf("%s: redeliver: %v %q", c.id, err, a.Error)
		}
		if st := w.state(t, c.id); st != c.want {
			t.Fatalf("%s after a redelivery: %s, want %s", c.id, st, c.want)
		}
		// The stale sender completes its failed attempt late, under the lease it had.
		n.Lease = stale
		now := time.Now()
		if err := w.disp.Outbox.Complete(ctx, n, readmodels.Attempt{ID: uuid.New(), ReceiptID: c.id, Merchant: n.Merchant, DeliveryID: uuid.New(),
			IdempotencyKey: readmodels.SpecKey(n.QueuedKey), URL: n.URL, AttemptedAt: now, Error: ErrorTimeout, Kind: "reconcile"},
			readmodels.Outcome{State: readmodels.NoteMarked, DeliveryID: uuid.New(), NextAt: now.Add(time.Minute), MarkedAt: &now}); err != nil {
			t.Fatal(err)
		}
		if st := w.state(t, c.id); st != c.want {
			t.Fatalf("%s after the stale completion: %s, want %s", c.id, st, c.want)
		}
	}
}
