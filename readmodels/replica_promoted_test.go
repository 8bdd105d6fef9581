package readmodels

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/migrations/pgtest"
)

// A replica promoted on its own (a cloud's "promote read replica", pg_promote on the standby
// while DATABASE_URL still names the old primary) is out of recovery but no longer receives the
// primary's writes: it is not used, and the probe says why (stop 67: "not in recovery" alone
// counted as current, so the lists, exports and search read a copy that fell further behind every
// second, with /healthz saying nothing). Here the "promoted replica" is another database, never in
// recovery, which none of the primary's writes reach; the primary's own server and database,
// reached through the replica URL (prefer-standby after a failover), still count as current.
func TestAReplicaPromotedOnItsOwnIsNotUsed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primaryURL := pgtest.URL(t)
	primary := pgtest.PoolFor(t, primaryURL)
	promoted := pgtest.PoolFor(t, pgtest.URL(t))

	r := NewReplicaReads(primary, promoted, time.Now, zerolog.Nop())
	_, _ = r.Probe(ctx) // the first measures nothing
	if ok, err := r.Probe(ctx); ok || !errors.Is(err, errPromoted) || r.Healthy() {
		t.Fatalf("a promoted replica: healthy %v, error %v; want errPromoted and no reads sent there", ok, err)
	}
	if p := ReadPool(r.For(ctx, "ip:10.0.0.1"), nil); p != primary {
		t.Fatal("a read was routed to the promoted replica")
	}

	same := NewReplicaReads(primary, pgtest.PoolFor(t, primaryURL), time.Now, zerolog.Nop())
	_, _ = same.Probe(ctx)
	if ok, err := same.Probe(ctx); !ok || err != nil {
		t.Fatalf("the replica URL reached the primary itself: healthy %v, error %v; want current", ok, err)
	}
}
