package readmodels

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/migrations/pgtest"
)

// fairOutbox is one of the three fair claims, seeded with a backlog and claiming ids.
type fairOutbox struct {
	name         string
	limit, share int
	seed         func(tb testing.TB, pool *pgxpool.Pool, keys, each int)
	// claim returns the claimed rows' ids and their keys (merchant, endpoint id).
	claim func(ctx context.Context, pool *pgxpool.Pool, limit, share int, busy map[string]int) (ids, keys []string, err error)
	reset string // makes every row claimable again
}

var fairOutboxes = []fairOutbox{
	{name: "receipt notifications", limit: 16, share: 32, seed: seedNotifications,
		claim: func(ctx context.Context, pool *pgxpool.Pool, limit, share int, busy map[string]int) ([]string, []string, error) {
			got, err := NewOutbox(pool).ClaimShared(ctx, limit, share, share, busy, time.Minute)
			return idsOf(got, func(c Claimed) string { return c.ID.String() }), idsOf(got, func(c Claimed) string { return c.Merchant }), err
		},
		reset: `UPDATE webhook_notifications SET lease_until = NULL, lease_token = NULL`},
	{name: "endpoint messages", limit: 32, share: 8, seed: seedEndpointMessages,
		claim: func(ctx context.Context, pool *pgxpool.Pool, limit, share int, busy map[string]int) ([]string, []string, error) {
			byID := map[uuid.UUID]int{}
			for k, n := range busy {
				byID[uuid.MustParse(k)] = n
			}
			got, err := NewEndpoints(pool, nil).ClaimMessages(ctx, limit, share, byID, time.Minute)
			return idsOf(got, func(m EndpointMessage) string { return m.EndpointID.String() + m.EventID.String() }),
				idsOf(got, func(m EndpointMessage) string { return m.EndpointID.String() }), err
		},
		reset: `UPDATE webhook_endpoint_messages SET lease_until = NULL`},
	{name: "subscription webhooks", limit: 32, share: 16, seed: seedSubscriptionWebhooks,
		claim: func(ctx context.Context, pool *pgxpool.Pool, limit, share int, busy map[string]int) ([]string, []string, error) {
			got, err := NewSubscriptionWebhooks(pool).ClaimShared(ctx, limit, share, busy, time.Minute)
			return idsOf(got, func(n SubscriptionWebhook) string { return n.ID.String() }), idsOf(got, func(n SubscriptionWebhook) string { return n.Merchant }), err
		},
		reset: `UPDATE subscription_webhooks SET lease_until = NULL`},
}

func idsOf[T any](list []T, id func(T) string) []string {
	ids := make([]string, 0, len(list))
	for _, x := range list {
		ids = append(ids, id(x))
	}
	return ids
}

// dueAt spreads the backlog's due times so the keys' rows interleave, all in the past.
const dueAt = `now() - interval '1 hour' + (j * $1 + k) * interval '1 millisecond'`

func seedNotifications(tb testing.TB, pool *pgxpool.Pool, merchants, each int) {
	tb.Helper()
	if _, err := pool.Exec(context.Background(), `INSERT INTO webhook_notifications
			(id, receipt_id, merchant_wallet, url, queued_key, state, next_attempt_at, created_at, updated_at)
		SELECT gen_random_uuid(), 'r-' || k || '-' || j, 'm-' || k, 'https://example.com/hook', 'q-' || k || '-' || j, 'pending',
			`+dueAt+`, now(), now()
		FROM generate_series(1, $1) AS k, generate_series(1, $2) AS j`, merchants, each); err != nil {
		tb.Fatal(err)
	}
}

func seedEndpointMessages(tb testing.TB, pool *pgxpool.Pool, endpoints, each int) {
	tb.Helper()
	if _, err := pool.Exec(context.Background(), `WITH ep AS (
			INSERT INTO webhook_endpoints (id, merchant_wallet, url, events, secret_nonce, secret_ciphertext, created_at)
			SELECT ('00000000-0000-0000-0000-' || lpad(to_hex(k), 12, '0'))::uuid, 'm-' || k, 'https://example.com/hook', '{*}', '\x00', '\x00', now()
			FROM generate_series(1, $1) AS k RETURNING id),
		ev AS (
			INSERT INTO webhook_events (seq, id, event_key, merchant_wallet, type, data, occurred_at)
			SELECT nextval('webhook_events_seq'), md5('e-' || k || '-' || j)::uuid, 'e-' || k || '-' || j, 'm-' || k, 'test', '{}', now()
			FROM generate_series(1, $1) AS k, generate_series(1, $2) AS j)
		INSERT INTO webhook_endpoint_messages (endpoint_id, event_id, next_attempt_at)
		SELECT ('00000000-0000-0000-0000-' || lpad(to_hex(k), 12, '0'))::uuid, md5('e-' || k || '-' || j)::uuid, `+dueAt+`
		FROM generate_series(1, $1) AS k, generate_series(1, $2) AS j`, endpoints, each); err != nil {
		tb.Fatal(err)
	}
}

func seedSubscriptionWebhooks(tb testing.TB, pool *pgxpool.Pool, merchants, each int) {
	tb.Helper()
	if _, err := pool.Exec(context.Background(), `INSERT INTO subscription_webhooks
			(id, idempotency_key, event, subscription_id, merchant_wallet, url, payload, next_attempt_at)
		SELECT gen_random_uuid(), 's-' || k || '-' || j, 'subscription.charged', 'sub-' || k || '-' || j, 'm-' || k, 'https://example.com/hook', '{}', `+dueAt+`
		FROM generate_series(1, $1) AS k, generate_series(1, $2) AS j`, merchants, each); err != nil {
		tb.Fatal(err)
	}
}

// TestConcurrentFairClaimsAreFullAndDisjoint: eight claims at once on a wide backlog (thousands of
// merchants or endpoints with a few due rows each) each take a full claim, none the same row. The
// claims picked their rows without locking and only then locked them (SKIP LOCKED), so claims at
// once picked the same rows and all but one or two came back empty ([0 0 16 0 0 0 16 0]): the
// workers that got none slept until their next poll, and a backlog drained about one claim at a
// time.
func TestConcurrentFairClaimsAreFullAndDisjoint(t *testing.T) {
	t.Parallel()
	for _, o := range fairOutboxes {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			u, err := url.Parse(pgtest.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("pool_max_conns", "10") // the claims really run at once
			u.RawQuery = q.Encode()
			pool := pgtest.PoolFor(t, u.String())
			o.seed(t, pool, 3000, 5)
			var start, claims sync.WaitGroup
			start.Add(1)
			got := make([][]string, 8)
			for i := range got {
				claims.Go(func() {
					start.Wait()
					ids, _, err := o.claim(context.Background(), pool, o.limit, o.share, nil)
					if err != nil {
						t.Error(err)
					}
					got[i] = ids
				})
			}
			start.Done()
			claims.Wait()
			var all, sizes = []string{}, []int{}
			for _, ids := range got {
				all, sizes = append(all, ids...), append(sizes, len(ids))
			}
			slices.Sort(all)
			if slices.ContainsFunc(sizes, func(n int) bool { return n != o.limit }) || len(slices.Compact(all)) != 8*o.limit {
				t.Fatalf("claims of %d at once took %v rows, %d different; want %d each, all different", o.limit, sizes, len(all), o.limit)
			}
		})
	}
}

// TestFairClaimsReachPastOneKeysBacklog: one merchant's (endpoint's) backlog, every row of it
// older than another merchant's only due row, fills any window of the oldest due rows; the
// claims still take that merchant's share and then the other merchant's row.
func TestFairClaimsReachPastOneKeysBacklog(t *testing.T) {
	t.Parallel()
	for _, o := range fairOutboxes {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			pool := pgtest.Pool(t)
			o.seed(t, pool, 1, 20*o.limit) // key 1: the backlog, due an hour ago and since
			ctx := context.Background()
			for _, table := range []string{"webhook_notifications", "webhook_endpoint_messages", "subscription_webhooks"} {
				if _, err := pool.Exec(ctx, `UPDATE `+table+` SET next_attempt_at = now() - interval '2 hours'`); err != nil {
					t.Fatal(err)
				}
			}
			seedOther(t, pool, o)
			busy := map[string]int{} // what the caller has in flight, as a worker counts it
			for range 10 {
				_, keys, err := o.claim(ctx, pool, o.limit, o.share, busy)
				if err != nil {
					t.Fatal(err)
				}
				if len(keys) == 0 {
					break
				}
				for _, k := range keys {
					busy[k]++
				}
			}
			if n := slices.Sorted(maps.Values(busy)); !slices.Equal(n, []int{1, o.share}) {
				t.Fatalf("claims until none is left took %v by key; want the backlog's share %d and the other key's row", busy, o.share)
			}
		})
	}
}

// seedOther adds key 2 of o's outbox with one row due a minute ago, newer than key 1's backlog.
func seedOther(t *testing.T, pool *pgxpool.Pool, o fairOutbox) {
	t.Helper()
	ctx := context.Background()
	var err error
	switch o.name {
	case "receipt notifications":
		_, err = pool.Exec(ctx, `INSERT INTO webhook_notifications (id, receipt_id, merchant_wallet, url, queued_key, state, next_attempt_at, created_at, updated_at)
			VALUES (gen_random_uuid(), 'other', 'm-2', 'https://example.com/hook', 'other', 'pending', now() - interval '1 minute', now(), now())`)
	case "endpoint messages":
		id := uuid.New()
		_, err = pool.Exec(ctx, `WITH ep AS (INSERT INTO webhook_endpoints (id, merchant_wallet, url, events, secret_nonce, secret_ciphertext, created_at)
				VALUES ($1, 'm-2', 'https://example.com/hook', '{*}', '\x00', '\x00', now()) RETURNING id),
			ev AS (INSERT INTO webhook_events (seq, id, event_key, merchant_wallet, type, data, occurred_at)
				VALUES (nextval('webhook_events_seq'), gen_random_uuid(), 'other', 'm-2', 'test', '{}', now()) RETURNING id)
			INSERT INTO webhook_endpoint_messages (endpoint_id, event_id, next_attempt_at) SELECT ep.id, ev.id, now() - interval '1 minute' FROM ep, ev`, id)
	default:
		_, err = pool.Exec(ctx, `INSERT INTO subscription_webhooks (id, idempotency_key, event, subscription_id, merchant_wallet, url, payload, next_attempt_at)
			VALUES (gen_random_uuid(), 'other', 'subscription.charged', 'sub-other', 'm-2', 'https://example.com/hook', '{}', now() - interval '1 minute')`)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFairClaimWideBacklog: one claim on a wide backlog (20,000 merchants or 10,000
// endpoints, a few due rows each), the size a short outage leaves.
func BenchmarkFairClaimWideBacklog(b *testing.B) {
	for _, o := range fairOutboxes {
		b.Run(o.name, func(b *testing.B) {
			pool := pgtest.Pool(b)
			if o.name == "endpoint messages" {
				o.seed(b, pool, 10000, 10)
			} else {
				o.seed(b, pool, 20000, 5)
			}
			ctx := context.Background()
			if _, err := pool.Exec(ctx, `ANALYZE`); err != nil {
				b.Fatal(err)
			}
			claims := 0
			for b.Loop() {
				ids, _, err := o.claim(ctx, pool, o.limit, o.share, nil)
				if err != nil {
					b.Fatal(err)
				}
				// At most about one instance's attempts in flight stay leased, as in service.
				if claims++; len(ids) < o.limit || claims%16 == 0 {
					b.StopTimer()
					if _, err := pool.Exec(ctx, o.reset+` WHERE lease_until IS NOT NULL`); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			}
		})
	}
}
