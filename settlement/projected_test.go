package settlement_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// awaitReceiptsProjected waits until the receipts read model holds every receipt event appended
// so far: the processes (window, sweeps) take their work lists from it, and it runs behind the
// appends, further behind on a busy machine.
func awaitReceiptsProjected(tb testing.TB, ctx context.Context, pool *pgxpool.Pool) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var behind bool
		err := pool.QueryRow(ctx, `SELECT EXISTS (
			SELECT 1 FROM (SELECT stream_id, max(version) AS v FROM events WHERE stream_id LIKE 'receipt-%' GROUP BY stream_id) e
			LEFT JOIN receipts r ON e.stream_id = 'receipt-' || r.receipt_id
			WHERE r.version IS NULL OR r.version < e.v)`).Scan(&behind)
		if err != nil {
			tb.Fatal(err)
		}
		if !behind {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatal("the receipts read model did not catch up with the appends")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
