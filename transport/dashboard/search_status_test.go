package dashboard_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
)

// TestDashboardSearchOfAStatusFindsOlderMatches: a search with a status filter kept the 50
// newest receipts matching the search, then dropped those of other statuses, so a merchant
// searching an order reference reused by 60 receipts for its refunded ones, the 10 oldest, saw
// "no receipts". The status is now a condition of the query; the page is still at most 50.
func TestDashboardSearchOfAStatusFindsOlderMatches(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	// The read model's rows as the projector writes them, 60 with one transactionId: the
	// oldest 10 refunded, the newest 50 paid.
	_, err := e.Pool.Exec(context.Background(), `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents,
			created_at, updated_at, version, pos_commit, pos_prepare, state)
		SELECT 'rcpt_many_' || i, $1, s, 'USD', 400, now(), now(), 2, 1000000 + i, 1000000 + i,
			jsonb_build_object('exists', true, 'status', s, 'receipt', jsonb_build_object('receiptId', 'rcpt_many_' || i,
				'transactionId', 'ord-many', 'currency', 'USD', 'totalCents', 400, 'createdAt', 1800000000000 + i))
		FROM generate_series(1, 60) AS i, LATERAL (SELECT CASE WHEN i <= 10 THEN 'refunded' ELSE 'paid' END AS s) st`, m.Wallet)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`<tr data-id="rcpt_many_(\d+)"`)
	for _, tc := range []struct {
		status      string
		rows        int
		first, last string
	}{
		{"refunded", 10, "10", "1"},
		{"paid", 50, "60", "11"},
		{"", 50, "60", "11"},
	} {
		code, page, _ := e.Get("/dashboard?q=ord-many&status="+tc.status, m.Cookies)
		found := row.FindAllStringSubmatch(page, -1)
		if code != 200 || len(found) != tc.rows || found[0][1] != tc.first || found[len(found)-1][1] != tc.last {
			t.Errorf("search of status %q: %d, %d rows, want %d (receipts %s to %s, newest first): %v", tc.status, code, len(found), tc.rows,
				tc.first, tc.last, fmt.Sprint(found))
		}
	}
}
