package pgstore

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestDueSubscriptionsLeavesEndedPermissionsOutAndPages: a subscription whose permission has
// ended by then (end is exclusive) is never due, whatever its nextChargeAt; cancelled, ended
// (a permission revoked on chain) and not-yet-due ones neither. The list comes in pages in id order after a cursor, so that a run
// can go through every due subscription, not always the same first ones.
func TestDueSubscriptionsLeavesEndedPermissionsOutAndPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	now := time.Unix(1_800_000_000, 0)
	add := func(id, status string, next time.Time, end int64) {
		t.Helper()
		state := fmt.Sprintf(`{"subscriptionId":%q,"status":%q,"permission":{"start":1,"end":%d}}`, id, status, end)
		exec(t, pool, `INSERT INTO subscriptions (subscription_id, plan_id, merchant, customer, status, next_charge_at,
			created_at, version, state) VALUES ($1, 'plan', '0xm', '0xc', $2, $3, 0, 1, $4)`, id, status, next.UnixMilli(), state)
	}
	add("sub_ended", "active", now.Add(-90*24*time.Hour), now.Unix()-1)
	add("sub_ends_now", "past_due", now.Add(-time.Hour), now.Unix())
	add("sub_cancelled", "cancelled", now.Add(-time.Hour), now.Unix()+3600)
	add("sub_revoked", "ended", now.Add(-time.Hour), now.Unix()+3600) // revoked on chain (stop 66)
	add("sub_later", "active", now.Add(time.Hour), now.Unix()+3600)
	for _, id := range []string{"sub_d", "sub_b", "sub_e", "sub_a", "sub_c"} {
		add(id, "active", now.Add(-time.Minute), now.Unix()+1)
	}
	s := NewSubscriptions(pool)
	var all []string
	for after := ""; ; {
		page, err := s.DueSubscriptions(ctx, now, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1]
	}
	if want := []string{"sub_a", "sub_b", "sub_c", "sub_d", "sub_e"}; !slices.Equal(all, want) {
		t.Fatalf("due %v, want %v", all, want)
	}
}

// TestUndistributedReachesPastOneSplitsBacklog: a split whose release keeps failing keeps its
// charged rows undistributed; with as many of them as a page holds, every page was that split's
// oldest rows, and no other merchant's newer charge was ever released. A page now holds at most
// undistributedPerSplit rows of one split, oldest first, so the others' rows are in it.
func TestUndistributedReachesPastOneSplitsBacklog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	exec(t, pool, `INSERT INTO subscription_charges (subscription_id, period_index, merchant, customer, split_address,
			amount_units, amount_cents, platform_fee_cents, attempt, status, claim_token, charged_at)
		SELECT 'sub_stuck_' || i, 0, '0xstuck', '0xc', '0xsplitstuck', 1000000, 100, 1, 1, 'charged', gen_random_uuid(),
			now() - interval '1 day' + i * interval '1 second'
		FROM generate_series(1, 300) AS i`)
	exec(t, pool, `INSERT INTO subscription_charges (subscription_id, period_index, merchant, customer, split_address,
			amount_units, amount_cents, platform_fee_cents, attempt, status, claim_token, charged_at)
		VALUES ('sub_other', 0, '0xother', '0xc', '0xsplitother', 1000000, 100, 1, 1, 'charged', gen_random_uuid(), now())`)
	rows, err := NewSubscriptionCharges(pool).Undistributed(ctx, 200)
	if err != nil {
		t.Fatal(err)
	}
	perSplit := map[string]int{}
	for _, r := range rows {
		perSplit[r.Split]++
	}
	if perSplit["0xsplitother"] != 1 || perSplit["0xsplitstuck"] != undistributedPerSplit {
		t.Fatalf("a page of 200 holds %v; want the other split's row and %d of the stuck split's", perSplit, undistributedPerSplit)
	}
	if rows[0].SubscriptionID != "sub_stuck_1" {
		t.Fatalf("the page starts at %s; want the oldest row, sub_stuck_1", rows[0].SubscriptionID)
	}
}
