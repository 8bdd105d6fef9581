package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/domain/subscription"
)

// TestSubscriptionListsPage: a merchant's (or customer's) list is read a page at a time, oldest
// first, following next to the end; before, it ended at its oldest 1,000 with nothing saying
// so, and a merchant's newer subscribers could never be read.
func TestSubscriptionListsPage(t *testing.T) {
	t.Parallel()
	e := newSubEnv(t)
	merchantKey, _ := crypto.GenerateKey()
	merchant := walletOf(merchantKey)
	const n = 1001
	batch := make([][]any, 0, n)
	for i := range n {
		st := subscription.State{Exists: true, ID: fmt.Sprintf("sub_%04d", i), PlanID: "plan_x", Merchant: merchant,
			Customer: "0x00000000000000000000000000000000000000c1", Status: subscription.StatusActive,
			CreatedAt: int64(1_700_000_000_000 + i/3)} // three at each time: ties broken by id
		raw, _ := json.Marshal(st)
		batch = append(batch, []any{st.ID, st.Merchant, st.Customer, st.CreatedAt, raw})
	}
	for _, r := range batch {
		if _, err := e.pool.Exec(context.Background(), `INSERT INTO subscriptions
			(subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
			VALUES ($1, 'plan_x', $2, $3, 'active', 0, $4, 1, $5)`, r...); err != nil {
			t.Fatal(err)
		}
	}
	cookies, _ := e.login(merchantKey)
	list := func(query string) (int, []any, any) {
		rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?merchant=" + merchant + query, cookies: cookies})
		body := decode(t, rec)
		subs, _ := body["subscriptions"].([]any)
		return rec.Code, subs, body["next"]
	}
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		q := ""
		if cursor != "" {
			q = "&cursor=" + url.QueryEscape(cursor)
		}
		code, subs, next := list(q)
		if code != http.StatusOK || pages > 2 {
			t.Fatalf("page %d: %d, %d subscriptions, next %v", pages, code, len(subs), next)
		}
		for _, s := range subs {
			ids = append(ids, s.(map[string]any)["subscriptionId"].(string))
		}
		c, ok := next.(string)
		if !ok {
			break
		}
		cursor = c
	}
	if len(ids) != n || ids[0] != "sub_0000" || ids[n-1] != fmt.Sprintf("sub_%04d", n-1) {
		t.Fatalf("read %d subscriptions (first %v), want all %d in order", len(ids), ids[:1], n)
	}
	for i := range ids {
		if ids[i] != fmt.Sprintf("sub_%04d", i) {
			t.Fatalf("position %d is %s", i, ids[i])
		}
	}
	// Smaller pages, split inside a tie of createdAt.
	code, subs, next := list("&limit=2")
	if code != http.StatusOK || len(subs) != 2 || next == nil {
		t.Fatalf("limit 2: %d %d %v", code, len(subs), next)
	}
	code, subs, _ = list("&limit=2&cursor=" + url.QueryEscape(next.(string)))
	if code != http.StatusOK || len(subs) != 2 || subs[0].(map[string]any)["subscriptionId"] != "sub_0002" {
		t.Fatalf("second page of 2: %d %v", code, subs)
	}
	for _, q := range []string{"&limit=0", "&limit=1001", "&limit=x", "&cursor=!!", "&cursor=bm9waXBl"} {
		if code, _, _ := list(q); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", q, code)
		}
	}
}
