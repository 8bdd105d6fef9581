package readmodels

import (
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestClaimSharedSharesPerMerchantAndClass: the workers' share is per merchant and class
// (ShareKey): a merchant whose marked notifications fill their share in flight still has its
// pending ones claimed, and the other way round. One share per merchant held its first attempts
// behind a backlog of marked retries to a hanging receiver.
func TestClaimSharedSharesPerMerchantAndClass(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO webhook_notifications
			(id, receipt_id, merchant_wallet, url, queued_key, state, attempts, marked_at, next_attempt_at, created_at, updated_at)
		SELECT gen_random_uuid(), 'r-' || s || '-' || j, 'm-x', 'https://example.com/hook', 'q-' || s || '-' || j, s,
			CASE WHEN s = 'marked' THEN 2 ELSE 0 END, CASE WHEN s = 'marked' THEN now() END,
			now() - interval '1 minute', now(), now()
		FROM unnest(ARRAY['marked', 'pending']) AS s, generate_series(1, 3) AS j`); err != nil {
		t.Fatal(err)
	}
	const share = 4
	out := NewOutbox(pool)
	for _, c := range []struct{ full, want string }{{"marked", NotePending}, {"pending", NoteMarked}} {
		got, err := out.ClaimShared(ctx, 16, share, share, map[string]int{ShareKey("m-x", c.full): share}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%s share full: claimed %d, want the 3 %s", c.full, len(got), c.want)
		}
		for _, n := range got {
			if n.State != c.want || ShareKey(n.Merchant, n.State) == ShareKey("m-x", c.full) {
				t.Fatalf("%s share full: claimed a %s notification", c.full, n.State)
			}
		}
		if _, err := pool.Exec(ctx, `UPDATE webhook_notifications SET lease_until = NULL, lease_token = NULL`); err != nil {
			t.Fatal(err)
		}
	}
}
