package readmodels

import (
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestClaimSharedTakesDueMarkedNotificationsUnderTheShare: the workers' claim takes marked
// notifications (a receiver was down; retried with backoff) once their backoff is due, under the
// per-merchant share of pending ones, so one merchant's backlog of due marked notifications,
// older than another merchant's and more than a claim takes, does not keep that merchant's out of
// the first claim. Marked notifications were claimed only by the reconciliation ticker, oldest due
// first with no share: with 10,000 of one merchant due to a hanging receiver, every other
// merchant's marked retries waited about 25 minutes. One not yet due is not claimed.
func TestClaimSharedTakesDueMarkedNotificationsUnderTheShare(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO webhook_notifications
			(id, receipt_id, merchant_wallet, url, queued_key, state, attempts, marked_at, next_attempt_at, created_at, updated_at)
		SELECT gen_random_uuid(), 'busy-' || j, 'm-busy', 'https://example.com/hook', 'q-busy-' || j, 'marked', 2, now() - interval '1 hour',
			now() - interval '1 hour' + j * interval '1 millisecond', now(), now()
		FROM generate_series(1, 200) AS j
		UNION ALL SELECT gen_random_uuid(), 'other', 'm-other', 'https://example.com/hook', 'q-other', 'marked', 2, now() - interval '1 hour',
			now() - interval '1 second', now(), now()
		UNION ALL SELECT gen_random_uuid(), 'later', 'm-later', 'https://example.com/hook', 'q-later', 'marked', 2, now(),
			now() + interval '1 minute', now(), now()`); err != nil {
		t.Fatal(err)
	}
	const limit, share = 16, 8
	got, err := NewOutbox(pool).ClaimShared(ctx, limit, share, share, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	byMerchant := map[string]int{}
	for _, c := range got {
		byMerchant[c.Merchant]++
		if c.State != NoteMarked {
			t.Errorf("%s claimed as %s, want marked", c.ReceiptID, c.State)
		}
	}
	if byMerchant["m-other"] != 1 || byMerchant["m-busy"] != share || byMerchant["m-later"] != 0 {
		t.Fatalf("first claim took %v; want the other merchant's due one, %d of the backlog's, none not yet due", byMerchant, share)
	}
}
