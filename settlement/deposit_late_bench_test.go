package settlement_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// BenchmarkOpenDepositsLateWatch: what the late watch (issue 41) costs the detector's read of the
// open deposits at each step: 10,000 open deposits and 10,000 expired receipts past their
// late-payment watch, read without the late watch (0: they are not read) and with it (a week:
// they are), alternating in the same run.
func BenchmarkOpenDepositsLateWatch(b *testing.B) {
	e := newDepositEnv(b)
	e.manyReceipts(20_000)
	now := time.Now()
	// Half of them expired two days ago: past PAYMENT_MONITOR_WINDOW (24h), within the late watch.
	_, err := e.pool.Exec(e.ctx, `UPDATE receipts SET status = 'failed', expires_at = $1
		WHERE receipt_id IN (SELECT receipt_id FROM receipts ORDER BY receipt_id LIMIT 10000)`, now.Add(-48*time.Hour))
	e.ok(err)
	store := pgstore.NewDeposits(e.pool)
	for _, c := range []struct {
		name string
		late time.Duration
		want int
	}{{"late=0", 0, 10_000}, {"late=week", settlement.DefaultLateWatch, 20_000}, {"late=0/again", 0, 10_000}, {"late=week/again", settlement.DefaultLateWatch, 20_000}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				open, err := store.Open(e.ctx, now, 24*time.Hour, c.late)
				if err != nil || len(open) != c.want {
					b.Fatalf("%d open (%v), want %d", len(open), err, c.want)
				}
			}
		})
	}
}
