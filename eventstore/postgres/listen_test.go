package postgres_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestSubscriptionsShareOneListen: a store's subscriptions (plain, filtered, read-ahead) wait for
// other processes' appends on one LISTEN connection, which wakes every one of them (polling is
// off: only the NOTIFY can), and which closes when the last subscription ends.
func TestSubscriptionsShareOneListen(t *testing.T) {
	pool := pgtest.Pool(t)
	writer := postgres.New(pool)                                       // another process
	reader := postgres.New(pool, postgres.WithPollInterval(time.Hour)) // woken by NOTIFY only
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	subCtx, stop := context.WithCancel(ctx)
	var plain, filtered, ahead atomic.Int64
	count := func(n *atomic.Int64) func(context.Context, []eventstore.RecordedEvent) error {
		return func(_ context.Context, b []eventstore.RecordedEvent) error { n.Add(int64(len(b))); return nil }
	}
	ended := make(chan error, 3)
	go func() { ended <- reader.Subscribe(subCtx, eventstore.Position{}, count(&plain)) }()
	go func() {
		ended <- reader.SubscribeFiltered(subCtx, eventstore.Position{}, []string{"listen-"}, nil, 0,
			func(ctx context.Context, b []eventstore.RecordedEvent, _ eventstore.Position) error {
				return count(&filtered)(ctx, b)
			})
	}()
	go func() {
		ended <- reader.SubscribeReadAhead(subCtx, eventstore.Position{}, nil, func(ctx context.Context, b []eventstore.RecordedEvent, _ func(*pgx.Batch)) error {
			return count(&ahead)(ctx, b)
		})
	}()
	listens := func() int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN '||$1`,
			postgres.Channel).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitUntil(t, "one LISTEN connection", func() bool { return listens() == 1 })
	for i := range 3 {
		if _, err := writer.Append(ctx, "listen-"+uuid.NewString(), eventstore.NoStream(),
			eventstore.EventData{ID: uuid.New(), Type: "Noted", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		want := int64(i + 1)
		waitUntil(t, "every subscription woken by the NOTIFY", func() bool {
			return plain.Load() == want && filtered.Load() == want && ahead.Load() == want
		})
	}
	if n := listens(); n != 1 {
		t.Fatalf("%d LISTEN connections for three subscriptions, want 1", n)
	}
	stop()
	for range 3 {
		<-ended
	}
	waitUntil(t, "the LISTEN connection closed", func() bool { return listens() == 0 })
}
