package webhooks

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// slowReleases is the outbox with releases that take a while, counting how many run at once.
type slowReleases struct {
	*readmodels.Outbox
	now, most atomic.Int32
}

func (s *slowReleases) Release(ctx context.Context, c readmodels.Claimed) error {
	n := s.now.Add(1)
	defer s.now.Add(-1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	select { // a release waiting its turn on a busy database
	case <-ctx.Done():
	case <-time.After(20 * time.Millisecond):
	}
	return s.Outbox.Release(ctx, c)
}

// TestCutAttemptsReleaseInTheRecordingSlots: attempts cut by shutdown all at once release their
// leases at most recordSlots at a time, as attempts are recorded: released outside the slots, each
// took a connection of the pool the API serves from at the same moment (up to every attempt in
// flight, 896 of them). Every lease is still given up.
func TestCutAttemptsReleaseInTheRecordingSlots(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	bg := context.Background()
	const cut = 40
	if _, err := pool.Exec(bg, `INSERT INTO webhook_notifications
			(id, receipt_id, merchant_wallet, url, queued_key, state, next_attempt_at, created_at, updated_at)
		SELECT gen_random_uuid(), 'r-' || i, '0xmerchant', 'https://example.com/hook', 'q-' || i, 'pending', now(), now(), now()
		FROM generate_series(1, $1) AS i`, cut); err != nil {
		t.Fatal(err)
	}
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	out := &slowReleases{Outbox: readmodels.NewOutbox(pool)}
	d := (&Dispatcher{Outbox: out, Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(), Timeout: time.Second}).Init()
	claimed, err := out.Claim(bg, []string{readmodels.NotePending}, false, cut, time.Minute)
	if err != nil || len(claimed) != cut {
		t.Fatalf("claimed %d (%v); want %d", len(claimed), err, cut)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel() // shutting down: every attempt is cut
	var attempts sync.WaitGroup
	for _, c := range claimed {
		attempts.Go(func() { d.Deliver(ctx, c) })
	}
	attempts.Wait()
	if n := out.most.Load(); n > recordSlots {
		t.Fatalf("%d releases ran at once; want at most %d", n, recordSlots)
	}
	var leased int
	if err := pool.QueryRow(bg, `SELECT count(*) FROM webhook_notifications WHERE lease_until IS NOT NULL`).Scan(&leased); err != nil || leased != 0 {
		t.Fatalf("%d notifications still leased (%v); want every lease given up", leased, err)
	}
}
