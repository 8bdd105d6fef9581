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
)

func TestPricingAndQuotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	get := func() map[string]any { return decode(t, e.dev(m, http.MethodGet, "/api/pricing/config", "")) }
	p := get()
	if p["tokens"].(map[string]any)["USDC"].(map[string]any)["usd"] != 1.0 || p["eurUsd"].(map[string]any)["usd"] != nil {
		t.Fatalf("defaults %v", p)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/pricing/config", `{"tokens":{"ETH":3000}}`); rec.Code != 403 {
		t.Fatalf("merchant set prices: %d", rec.Code)
	}
	ac, acsrf := e.login(e.admin)
	for _, body := range []string{`{"tokens":{"USDC":2}}`, `{"tokens":{"DOGE":1}}`, `{"tokens":{"ETH":-1}}`, `{"eurUsd":0}`, `{}`} {
		if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/pricing/config", body); rec.Code != 400 {
			t.Errorf("%s: %d", body, rec.Code)
		}
	}
	if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/pricing/config", `{"tokens":{"ETH":2500.5,"cbBTC":60000},"eurUsd":1.08}`); rec.Code != 200 {
		t.Fatalf("set: %d %s", rec.Code, rec.Body)
	}
	p = get()
	eth := p["tokens"].(map[string]any)["ETH"].(map[string]any)
	if eth["usd"] != 2500.5 || eth["setAt"] == nil || p["eurUsd"].(map[string]any)["usd"] != 1.08 {
		t.Fatalf("read back %v", p)
	}
	id := e.receiptFor(m, "50.01")
	q := decode(t, e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/quote", body: `{"token":"ETH"}`}))
	if q["amount"] != "0.02000000" || q["tokenUsdPrice"] != 2500.5 {
		t.Fatalf("ETH quote %v", q)
	}
	// The quote and its rate are in the receipt's events.
	evs := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id+"/events", ""))["events"].([]any)
	last := evs[len(evs)-1].(map[string]any)
	if last["type"] != "TokenQuoted" || last["data"].(map[string]any)["tokenUsdPrice"] != "2500.5" {
		t.Fatalf("quote event %v", last)
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/quote", body: `{"token":"cbXRP"}`}); rec.Code != 503 {
		t.Fatalf("token without a price: %d", rec.Code)
	}
	// EUR receipts convert with the EUR/USD rate and record it.
	e.item(m, `{"sku":"eur","name":"Croissant","price":10,"currency":"EUR"}`)
	eid := decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"eur","qty":1}]}`))["receipt"].(map[string]any)["receiptId"].(string)
	q = decode(t, e.do(req{method: http.MethodPost, path: "/api/portal/" + eid + "/quote", body: `{"token":"USDC"}`}))
	// 10.00 + 0.5% fee = 10.05 EUR × 1.08 = 10.854 USD.
	if q["amountUsd"] != 10.85 || q["eurUsdRate"] != "1.08" || q["amount"] != "10.85400000" {
		t.Fatalf("EUR quote %v", q)
	}
}

func TestBillingReservesAndSplitTransactionsFromReceipts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", `{"processingFeePct":1}`)
	e.item(m, `{"sku":"a","name":"A","priceUsd":100}`)
	var ids []string
	for range 3 {
		r := decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"a","qty":1}]}`))["receipt"].(map[string]any)
		ids = append(ids, r["receiptId"].(string)) // 100 + 1.5% fee = 101.50; platform 0.50, merchant 1.00
	}
	e.pay(ids[0], "evt_0")
	e.pay(ids[1], "evt_1")
	// Refund 20 of the second; the third stays unpaid.
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+ids[1]+`","reason":"r","amountUsd":20,"transactionHash":"0x`+strings.Repeat("4", 64)+`"}`); rec.Code != 200 {
		t.Fatalf("refund: %d %s", rec.Code, rec.Body)
	}
	// Split distributed for the first.
	_, res, err := commands.ChangeReceipt(context.Background(), e.svc.Events, ids[0], eventstore.Metadata{Actor: "test"}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.DistributeSplit(st, receipt.SplitDistributed{TransactionHash: "0x" + strings.Repeat("5", 64), At: time.Now().UnixMilli()})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.waitReadable(context.Background(), ids[0], res); err != nil {
		t.Fatal(err)
	}
	if err := e.usage.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := decode(t, e.dev(m, http.MethodGet, "/api/billing/balance", ""))
	for _, scope := range []string{"period", "allTime"} {
		s := b[scope].(map[string]any)
		cur := s["byCurrency"].([]any)
		if len(cur) != 1 {
			t.Fatalf("%s: %v", scope, s)
		}
		c := cur[0].(map[string]any)
		if c["paidReceipts"] != 2.0 || c["paidVolume"] != 203.0 || c["platformFees"] != 1.0 || c["merchantAddOnFees"] != 2.0 || c["refunds"] != 20.0 {
			t.Errorf("%s figures %v", scope, c)
		}
		if s["ordersCreated"] != 3.0 || s["apiCalls"] != 4.0 { // one inventory write and three orders before the flush
			t.Errorf("%s usage %v", scope, s)
		}
	}
	bal := decode(t, e.dev(m, http.MethodGet, "/api/reserve/balances", ""))["balances"].([]any)
	if len(bal) != 1 || bal[0].(map[string]any)["token"] != "USDC" || bal[0].(map[string]any)["settled"] != 183.0 || bal[0].(map[string]any)["refunded"] != 20.0 {
		t.Fatalf("balances %v", bal)
	}
	rec := decode(t, e.dev(m, http.MethodGet, "/api/reserve/recommend", ""))["recommendations"].([]any)
	r0 := rec[0].(map[string]any)
	in := r0["inputs"].(map[string]any)
	// 203.00 × (0.1 + 20/203) = 20.30 + 20.00 = 40.30
	if r0["recommended"] != 40.3 || in["volume"] != 203.0 || in["reserveRatio"] != 0.1 || in["ratioSource"] != "default" {
		t.Fatalf("recommendation %v", r0)
	}
	ac, acsrf := e.login(e.admin)
	e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", `{"reserveRatios":{"USD":0.2}}`)
	r0 = decode(t, e.dev(m, http.MethodGet, "/api/reserve/recommend", ""))["recommendations"].([]any)[0].(map[string]any)
	if r0["recommended"] != 60.6 || r0["inputs"].(map[string]any)["ratioSource"] != "site reserveRatios" {
		t.Fatalf("with site ratio %v", r0)
	}
	list := decodeArray(t, e.dev(m, http.MethodGet, "/api/split/transactions", ""))
	if len(list) != 1 || list[0]["receiptId"] != ids[0] || list[0]["amount"] != 101.5 || list[0]["fees"] != 1.5 ||
		list[0]["transactionHash"] != "0x"+strings.Repeat("5", 64) || list[0]["status"] != "distributed" {
		t.Fatalf("split transactions %v", list)
	}
	if l := decodeArray(t, e.dev(m, http.MethodGet, "/api/split/transactions?address="+testPlatform, "")); len(l) != 1 {
		t.Fatalf("by recipient address: %v", l)
	}
	if l := decodeArray(t, e.dev(m, http.MethodGet, "/api/split/transactions?address=0x"+strings.Repeat("9", 40), "")); len(l) != 0 {
		t.Fatalf("by a stranger's address: %v", l)
	}
	other := e.merchant(true)
	if l := decodeArray(t, e.dev(other, http.MethodGet, "/api/split/transactions", "")); len(l) != 0 {
		t.Fatalf("another merchant: %v", l)
	}
}

func decodeArray(t testing.TB, rec interface{ Result() *http.Response }) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.NewDecoder(rec.Result().Body).Decode(&out); err != nil {
		t.Fatalf("not a JSON array: %v", err)
	}
	return out
}
