package readmodels

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestQueueNotificationWhileADeliveryCompletes is issue 36's "told failed about a paid receipt":
// the projector queues paid while the dispatcher records the failed notification as delivered.
// The projector's statement takes its snapshot (the notification still open, aimed at failed),
// then waits for the row the completion holds; once the completion commits, the open row it
// meant to re-aim is delivered. paid must still get a notification of its own.
func TestQueueNotificationWhileADeliveryCompletes(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	queue := func(q interface {
		SendBatch(context.Context, *pgx.Batch) pgx.BatchResults
	}, key string) error {
		b := &pgx.Batch{}
		QueueNotification(b, "r1", "0xm", "http://receiver.example", key)
		return q.SendBatch(ctx, b).Close()
	}
	if err := queue(pool, "receipt-status:r1:failed:"); err != nil {
		t.Fatal(err)
	}
	completion, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer completion.Rollback(ctx) //nolint:errcheck // committed below
	if _, err := completion.Exec(ctx, `UPDATE webhook_notifications SET state = 'delivered', delivered_at = now()
		WHERE receipt_id = 'r1' AND queued_key = 'receipt-status:r1:failed:'`); err != nil {
		t.Fatal(err)
	}
	projected := make(chan error, 1)
	go func() {
		projected <- pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return queue(tx, "receipt-status:r1:paid:0xabc") })
	}()
	waitFor(t, "the projector to wait for the notification's row", func() bool {
		var n int
		exec := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
		if err := exec.Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	if err := completion.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-projected; err != nil {
		t.Fatal(err)
	}
	var state string
	err = pool.QueryRow(ctx, `SELECT state FROM webhook_notifications WHERE queued_key = 'receipt-status:r1:paid:0xabc'`).Scan(&state)
	if err != nil || state != NotePending {
		t.Fatalf("paid's notification: state %q, %v (it must be queued, pending)", state, err)
	}
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, 10*time.Second, cond)
}
