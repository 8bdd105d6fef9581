package main

import (
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// An order taken in degraded mode shows its deposit address before its receipt's row exists (the
// order is journaled; the row comes with the journal's replay). A customer who pays at once,
// while PostgreSQL is still cut off, is credited once it is back: the receipt is paid, whichever
// of the journal's replay and the deposit detector's next step comes first (a detector that read
// the paying block before the row was written looks the deposit up in the blocks already read).
func TestServeDegradedOrderPaidByDepositWhileCutOff(t *testing.T) {
	d := newDepositServe(t, withDatabaseProxy())
	pool := pgtest.PoolFor(t, d.direct)
	if _, _, err := readmodels.NewInventory(pool).Upsert(d.ctx, readmodels.Item{Wallet: d.merchant, SKU: "tea", Name: "Tea",
		PriceCents: 1000, Currency: "USD", StockQty: -1}); err != nil {
		t.Fatal(err)
	}
	key := createKey(t, d.ctx, d.serveVars, d.merchant, "orders:create,receipts:read", "pos")
	order := map[string]any{"items": []map[string]any{{"sku": "tea", "qty": 1}}}
	if code, m := d.c.call(http.MethodPost, "/api/orders", key, order); code != http.StatusOK || m["degraded"] == true {
		t.Fatalf("warm-up order: %d %v", code, m) // it warms the service's last-known data
	}
	d.proxy.cut()
	code, m := d.c.call(http.MethodPost, "/api/orders", key, order)
	r, _ := m["receipt"].(map[string]any)
	id, _ := r["receiptId"].(string)
	deposit, _ := r["depositAddress"].(string)
	if code != http.StatusOK || m["degraded"] != true || id == "" || !common.IsHexAddress(deposit) {
		t.Fatalf("order while cut off: %d %v\n%s", code, m, d.out.String())
	}
	sendDeposit(t, d.vars, d.accounts[0], deposit) // mined while serve cannot reach its database
	d.proxy.restore()
	waitDepositPaid(t, d.c, key, id, deposit, d.accounts[0], d.out.String)
}
