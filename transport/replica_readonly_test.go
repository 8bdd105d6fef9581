package transport

import (
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A write that reaches a server which only reads (a standby behind a proxy or an address that
// has not moved yet after a switchover, or a primary an operator set read-only) fails with 25006:
// nothing was written, and the primary is elsewhere or coming back. That is the datastore being
// unavailable: an order is journaled (the degraded answer) and replayed once writes work again,
// a receipt without a journal answers 503 datastore_unavailable, never 500 (stop 61: both were
// 500 "Internal server error", and the order was lost).
func TestAWriteOnAReadOnlyServerIsTheDegradedPath(t *testing.T) {
	t.Parallel()
	e, m, order := orderingMerchant(t, "writable")
	ctx := context.Background()
	// A session opened before the switch stays writable: it turns writes back on afterwards.
	admin, err := pgx.Connect(ctx, e.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	setReadOnly := func(on bool) {
		t.Helper()
		stmt := "ALTER DATABASE " + pgx.Identifier{admin.Config().Database}.Sanitize() + " SET default_transaction_read_only = "
		if _, err := admin.Exec(ctx, stmt+map[bool]string{true: "on", false: "off"}[on]); err != nil {
			t.Fatal(err)
		}
		e.pool.Reset() // the pool's next connections get the setting
	}
	setReadOnly(true)

	rec := e.dev(m, http.MethodPost, "/api/orders", order)
	body := decode(t, rec)
	if rec.Code != 200 || body["degraded"] != true {
		t.Fatalf("order on a read-only server: %d %s; want 200 with degraded: true", rec.Code, rec.Body)
	}
	id := body["receipt"].(map[string]any)["receiptId"].(string)
	rec = e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"R","priceUsd":3}],"totalUsd":3}`, "Idempotency-Key", "ro-1")
	if got := decode(t, rec); rec.Code != http.StatusServiceUnavailable || got["error"] != "datastore_unavailable" {
		t.Fatalf("a receipt that cannot be journaled, on a read-only server: %d %s; want 503 datastore_unavailable", rec.Code, rec.Body)
	}

	setReadOnly(false)
	if n, err := e.svc.Replayer.DrainOnce(ctx); err != nil || n != 1 {
		t.Fatalf("replay once writes work again: %d entries, %v; want 1", n, err)
	}
	var stored int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1`, "receipt-"+id).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("the journaled order's stream holds %d events (%v); want 1", stored, err)
	}
}

// orderingMerchant is a merchant with a split and an item whose order (returned) succeeds while
// the datastore works (when says how it works).
func orderingMerchant(t *testing.T, when string) (*env, merchant, string) {
	t.Helper()
	e := newAppEnv(t, nil, nil, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	order := `{"items":[{"sku":"tea","qty":1}]}`
	if rec := e.dev(m, http.MethodPost, "/api/orders", order); rec.Code != 200 {
		t.Fatalf("order while %s: %d %s", when, rec.Code, rec.Body)
	}
	return e, m, order
}
