package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/readmodels"
)

// quoteEnv is portalEnv with USDC and USDT configured on the chain.
func quoteEnv(t *testing.T) *env {
	return newAppEnv(t, withDeposits, func(d *testDeps) {
		d.Config.PaymentChain = PaymentChain{ChainID: 1337, Tokens: []PaymentToken{{Symbol: "USDC", Address: portalUSDC, Decimals: 6},
			{Symbol: "USDT", Address: "0x" + "dac17f958d2ee523a2206206994597c13d831ec7", Decimals: 6}}}
	}, nil)
}

// TestQuoteRateHoldsAfterARateChange is issue 36 item 2 through the API: a 100.50 EUR receipt
// quoted in USDC at EUR/USD 1.1 asks 110.55; the rate is set to 0.5 and USDT is quoted: USDT asks
// 110.55 too, and USDC still does. The payment request read right after each quote sees it.
func TestQuoteRateHoldsAfterARateChange(t *testing.T) {
	t.Parallel()
	e := quoteEnv(t)
	m := e.merchant(true)
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"currency":"EUR","lineItems":[{"label":"Order","priceUsd":100.5}],"totalUsd":100.5}`)
	if rec.Code != 201 {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	setEUR := func(rate string) {
		t.Helper()
		if err := readmodels.NewPrices(e.pool).Set(context.Background(), []readmodels.Price{{Asset: "EUR", USDPrice: rate, SetAt: time.Now(), SetBy: "t"}}); err != nil {
			t.Fatal(err)
		}
	}
	quote := func(token string) string {
		t.Helper()
		rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/quote", body: `{"token":"` + token + `"}`})
		if rec.Code != 200 {
			t.Fatalf("quote %s: %d %s", token, rec.Code, rec.Body)
		}
		return decode(t, rec)["amount"].(string)
	}
	request := func(token string) string {
		t.Helper()
		rec := e.do(req{method: http.MethodGet, path: "/api/portal/" + id + "/request?token=" + token})
		var r paymentRequest
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &r) != nil {
			t.Fatalf("request %s: %d %s", token, rec.Code, rec.Body)
		}
		return r.Amount
	}
	setEUR("1.1")
	if q := quote("USDC"); q != "110.55000000" {
		t.Fatalf("USDC quote %s", q)
	}
	setEUR("0.5")
	if q := quote("USDT"); q != "110.55000000" {
		t.Fatalf("USDT quoted %s after the rate fell, want the first quote's 110.55", q)
	}
	for _, token := range []string{"USDC", "USDT"} {
		if got := request(token); got != "110.55" {
			t.Fatalf("%s request asks %s, want 110.55", token, got)
		}
	}
}

// TestPaymentRequestReadAfterItsQuote: the page quotes, then reads the payment request at once;
// the read must see the quote (DESIGN 4's read-your-writes), even while the projector is slow:
// here it waits for a lock the test holds on the receipts table until the quote's answer is due.
func TestPaymentRequestReadAfterItsQuote(t *testing.T) {
	t.Parallel()
	e := quoteEnv(t)
	m := e.merchant(true)
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"currency":"EUR","lineItems":[{"label":"Order","priceUsd":100.5}],"totalUsd":100.5}`)
	if rec.Code != 201 {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	if err := readmodels.NewPrices(e.pool).Set(context.Background(), []readmodels.Price{{Asset: "EUR", USDPrice: "1.1", SetAt: time.Now(), SetBy: "t"}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	holder, err := pgx.Connect(ctx, e.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	hold, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Exec(ctx, `LOCK TABLE receipts IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		quote, request int
		body           string
	}
	done := make(chan answer, 1)
	go func() {
		q := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/quote", body: `{"token":"USDC"}`})
		r := e.do(req{method: http.MethodGet, path: "/api/portal/" + id + "/request?token=USDC"})
		done <- answer{q.Code, r.Code, r.Body.String()}
	}()
	waitUntil(t, "the projector to wait for the receipts table", 5*time.Second, func() bool {
		var n int
		if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	var got answer
	select {
	case got = <-done: // answered while the quote is not in the read model yet
	case <-time.After(time.Second): // waiting for the projector, as it should
		if err := hold.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		got = <-done
	}
	_ = hold.Rollback(ctx)
	if got.quote != 200 || got.request != 200 {
		t.Fatalf("quote %d, then request %d %s: the request read after a quote must see it", got.quote, got.request, got.body)
	}
}
