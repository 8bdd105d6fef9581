package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// TestStatusCacheFollowsChangesFromAnyInstance: a status read is served from the instance's cache
// once read, and a change made elsewhere (here: an append that bypasses this server, as another
// instance's command would) reaches it through the receipts projector's NOTIFY. Without the
// notification the cached "generated" would be answered forever.
func TestStatusCacheFollowsChangesFromAnyInstance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":3}`)
	rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}]}`)
	if rec.Code != 200 {
		t.Fatalf("order: %d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	status := func(m merchant) (int, string) {
		rec := e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+id, "")
		if rec.Code != 200 {
			return rec.Code, ""
		}
		return rec.Code, decode(t, rec)["status"].(string)
	}
	waitUntil(t, "the status to be cached", 5*time.Second, func() bool {
		_, st := status(m)
		return st == "generated" && e.srv.caches.status.Len() == 1
	})
	// Another merchant never reads the cached entry.
	if code, _ := status(e.merchant(false)); code != 404 {
		t.Fatalf("other merchant: %d, want 404", code)
	}
	_, _, err := commands.ChangeReceipt(context.Background(), e.svc.Events, id, eventstore.Metadata{Actor: "elsewhere"}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "a1", Kind: "wallet", OpenedBy: "customer", At: time.Now().UnixMilli()})
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = commands.ChangeReceipt(context.Background(), e.svc.Events, id, eventstore.Metadata{Actor: "elsewhere"}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Submit(st, receipt.PaymentSubmitted{AttemptID: "a1", Source: "wallet", TransactionHash: "0x" + strings.Repeat("ab", 32), At: time.Now().UnixMilli()})
	})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the change to reach the cached status", 3*time.Second, func() bool { _, st := status(m); return st == "pending" })
}

// TestStatusCacheSkipsPendingDeliveries: a status whose webhook is still owed changes without a
// projector commit (the dispatcher delivers it), so it is never cached; once delivered it is.
func TestStatusCacheSkipsPendingDeliveries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	recv := newReceiver(t, 200)
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"x","priceUsd":1}],"totalUsd":1,"webhook_url":"`+recv.srv.URL+`"}`)
	if rec.Code != 201 {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	// A notification that is owed (marked for reconciliation, not due for an hour).
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO webhook_notifications (id, receipt_id, merchant_wallet, url, queued_key, state,
			next_attempt_at, created_at, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, 'k-'||$1, 'marked', now() + interval '1 hour', now(), now())`,
		id, m.wallet, recv.srv.URL); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		return decode(t, e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+id, ""))["webhookDelivery"].(string)
	}
	if got := read(); got != "pending" {
		t.Fatalf("owed: %q", got)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE webhook_notifications SET state = 'delivered' WHERE receipt_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "delivered" {
		t.Fatalf("after delivery: %q (a pending state was cached)", got)
	}
}

// TestOrderPricingCachesFollowOtherInstances: inventory prices, a merchant's add-on fee and the
// platform rate are cached by order creation; changes saved by another instance (here: the stores
// used directly, bypassing this server) reach later orders through their NOTIFYs.
func TestOrderPricingCachesFollowOtherInstances(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":10}`)
	order := func() (subtotal, fee float64) {
		rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}]}`)
		if rec.Code != 200 {
			t.Fatalf("order: %d %s", rec.Code, rec.Body)
		}
		for _, li := range decode(t, rec)["receipt"].(map[string]any)["lineItems"].([]any) {
			l := li.(map[string]any)
			switch l["label"] {
			case "Processing Fee":
				fee = l["priceUsd"].(float64)
			default:
				subtotal += l["priceUsd"].(float64)
			}
		}
		return subtotal, fee
	}
	waitUntil(t, "the caches to fill", 5*time.Second, func() bool {
		order()
		return e.srv.caches.inventory.Len() > 0 && e.srv.caches.pricing.Len() > 0
	})
	if sub, fee := order(); sub != 10 || fee != 0.05 {
		t.Fatalf("before: subtotal %v fee %v", sub, fee)
	}
	ctx := context.Background()
	elsewhere := readmodels.NewInventory(e.pool)
	if _, _, err := elsewhere.Upsert(ctx, readmodels.Item{Wallet: m.wallet, SKU: "tea", Name: "Tea", PriceCents: 2000, Currency: "USD"}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the new price", 3*time.Second, func() bool { sub, _ := order(); return sub == 20 })
	if _, err := readmodels.NewShops(e.pool).Update(ctx, m.wallet, time.Now(), func(c *readmodels.ShopConfig) error {
		c.ProcessingFeePct = "1.5"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the merchant's add-on", 3*time.Second, func() bool { _, fee := order(); return fee == 0.4 }) // 2% of 20
	pct := json.Number("1")
	if err := readmodels.NewSites(e.pool).Save(ctx, readmodels.SiteConfig{ProcessingFeePct: &pct, DefaultPaymentToken: "USDC"}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the platform rate", 3*time.Second, func() bool { _, fee := order(); return fee == 0.5 }) // 2.5% of 20
}
