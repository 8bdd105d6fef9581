package readmodels

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/migrations/pgtest"
)

// seedReceiver adds n pending notifications of merchant to receiver (an origin; each URL has its
// own path and query, as per-order URLs do), due ago and a millisecond apart.
func seedReceiver(t *testing.T, pool *pgxpool.Pool, merchant, receiver string, n int, ago time.Duration) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `INSERT INTO webhook_notifications
			(id, receipt_id, merchant_wallet, url, queued_key, state, next_attempt_at, created_at, updated_at)
		SELECT gen_random_uuid(), $2 || '-' || j, $1, $2 || '/hook?order=' || j, 'q-' || $2 || '-' || j, 'pending',
			now() - $4 * interval '1 second' + j * interval '1 millisecond', now(), now()
		FROM generate_series(1, $3) AS j`, merchant, receiver, n, ago.Seconds()); err != nil {
		t.Fatal(err)
	}
}

// TestClaimSharedLeavesAMerchantsOtherReceiverItsPlaces: within a merchant's share (per class),
// one receiver (the origin of the URL) has at most perReceiver places: a backlog to one receiver,
// due before everything else, leaves the merchant's other receiver's first attempt claimable, in
// the same claim and while the backlog's receiver is at its share in flight; the merchant still
// has at most perMerchant in all. With the share per merchant and class only, the backlog took
// every place and the other receiver's notification was not claimed.
func TestClaimSharedLeavesAMerchantsOtherReceiverItsPlaces(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	const perMerchant, perReceiver = 6, 4
	seedReceiver(t, pool, "m-x", "https://slow.example", 20, 3600)
	seedReceiver(t, pool, "m-x", "https://fast.example", 1, 60)
	out := NewOutbox(pool)
	claim := func(busy map[string]int) map[string]int {
		t.Helper()
		got, err := out.ClaimShared(ctx, 16, perMerchant, perReceiver, busy, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE webhook_notifications SET lease_until = NULL, lease_token = NULL`); err != nil {
			t.Fatal(err)
		}
		byReceiver := map[string]int{}
		for _, c := range got {
			byReceiver[strings.SplitN(c.ReceiptID, "-", 2)[0]]++
		}
		return byReceiver
	}
	if got := claim(nil); got["https://slow.example"] != perReceiver || got["https://fast.example"] != 1 {
		t.Fatalf("one claim took %v; want the backlog's receiver's %d and the other receiver's 1", got, perReceiver)
	}
	slow := ReceiverKey("m-x", NotePending, "https://slow.example/hook?order=1")
	busy := map[string]int{ShareKey("m-x", NotePending): perReceiver, slow: perReceiver}
	if got := claim(busy); got["https://slow.example"] != 0 || got["https://fast.example"] != 1 {
		t.Fatalf("with the backlog's receiver at its share in flight the claim took %v; want the other receiver's 1 only", got)
	}
	seedReceiver(t, pool, "m-x", "https://third.example", 20, 1800)
	got, total := claim(nil), 0
	for r, n := range got {
		if total += n; n > perReceiver {
			t.Fatalf("receiver %s: %d claimed, more than its share %d", r, n, perReceiver)
		}
	}
	if total != perMerchant {
		t.Fatalf("three receivers with backlogs: %v claimed, %d in all; want the merchant's share %d", got, total, perMerchant)
	}
}

// TestReceiverKeyIsTheSQLsKey: ReceiverKey (the workers' count in flight) and receiverKeySQL (the
// claim's) name a notification's receiver alike, or a receiver at its share would not be capped.
func TestReceiverKeyIsTheSQLsKey(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	for i, url := range []string{"https://a.example/hook?x=1", "https://a.example", "http://127.0.0.1:8080/h#f", "HTTPS://A.example:443?q",
		"https://u:p@a.example/p", "no-scheme/path", "mailto:x@y", "https://a.example?b://c", ""} {
		var sql string
		if err := pool.QueryRow(context.Background(), fmt.Sprintf(`SELECT %s FROM (SELECT 'm' AS merchant_wallet, 'marked' AS state, $1::text AS url) n`,
			receiverKeySQL), url).Scan(&sql); err != nil {
			t.Fatal(err)
		}
		if goKey := ReceiverKey("m", NoteMarked, url); goKey != sql {
			t.Fatalf("%d %q: Go %q, SQL %q", i, url, goKey, sql)
		}
	}
}
