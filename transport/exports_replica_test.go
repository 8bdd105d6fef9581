package transport

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestExportsRoutedToAReplicaUseTheExportsPool: with DATABASE_REPLICA_URL, exports are routed to
// the replica like the other stale-tolerant reads, and must still run on connections of the
// exports' own budget (DESIGN 10: exports never take the connections the API needs). They ran on
// the router's pool instead, the API's replica pool (or, for a caller who had just written or
// while the replica lagged, the API's primary pool), where four slow readers held four of the
// connections the payment page's and the lists' reads wait for.
func TestExportsRoutedToAReplicaUseTheExportsPool(t *testing.T) {
	t.Parallel()
	e := newAppEnv(t, func(c *app.Config) {
		// The test database's primary stands in for the replica (never in recovery: always current).
		c.ReplicaPool = pgtest.PoolFor(t, c.Pool.Config().ConnString())
	}, nil, nil)
	r := e.svc.Replica
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitUntil(t, "the replica probed healthy", 5*time.Second, r.Healthy)

	m := e.merchant(false)
	insertReceipts(t, e, m.wallet, 10)
	e.clk.Advance(11 * time.Second) // past the merchant's own writes: its reads go to the replica at once
	before, _, _ := r.Stats()
	for _, x := range []struct{ path, query string }{
		{"/api/exports/receipts.csv", `SELECT %receipt_id, (extract(epoch FROM %created_at)%`},
		{"/api/exports/split-transactions.csv", `%(state->>'splitDistributedAt')::bigint >= $2%`},
	} {
		if rec := e.dev(m, http.MethodGet, x.path, ""); rec.Code != 200 {
			t.Fatalf("%s: %d %s", x.path, rec.Code, rec.Body)
		}
		// The connections whose last statement was this export's (pg_stat_activity keeps its
		// beginning): the exports' own (idle ones stay a minute).
		var own, others int
		err := e.pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE application_name = 'payledger-exports'),
				count(*) FILTER (WHERE application_name IS DISTINCT FROM 'payledger-exports')
			FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE $1`, x.query).Scan(&own, &others)
		if err != nil {
			t.Fatal(err)
		}
		if others != 0 || own == 0 {
			t.Errorf("%s ran on %d connections of the API's pools and %d of the exports' own", x.path, others, own)
		}
	}
	if used, _, _ := r.Stats(); used-before != 2 {
		t.Fatalf("%d of the 2 exports were routed to the replica", used-before)
	}
}
