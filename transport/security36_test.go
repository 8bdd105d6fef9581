package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Tests of issue 36's access findings (DESIGN 10 "Headers and errors"); docs/security.md lists
// which test guards which finding.

// Finding 12: every answer (JSON, an error, a 404, a preflight, the payment page) carries
// X-Content-Type-Options: nosniff; production adds Strict-Transport-Security, development does not.
func TestEveryAnswerCarriesNosniffAndProductionHSTS(t *testing.T) {
	t.Parallel()
	for _, production := range []bool{false, true} {
		e := newEnv(t, func(d *testDeps) { d.Config.Production = production })
		for _, r := range []req{
			{method: http.MethodGet, path: "/healthz"},
			{method: http.MethodGet, path: "/api/receipts"},            // 401 envelope
			{method: http.MethodGet, path: "/api/portal/rcpt_missing"}, // 404 envelope
			{method: http.MethodGet, path: "/no/such/route"},
			{method: http.MethodOptions, path: "/api/orders", header: map[string]string{"Origin": "https://shop.example",
				"Access-Control-Request-Method": "POST"}},
		} {
			rec := e.do(r)
			if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("production=%v %s %s (%d): X-Content-Type-Options %q", production, r.method, r.path, rec.Code, got)
			}
			hsts := rec.Header().Get("Strict-Transport-Security")
			if production && hsts != "max-age=31536000" || !production && hsts != "" {
				t.Errorf("production=%v %s %s: Strict-Transport-Security %q", production, r.method, r.path, hsts)
			}
		}
	}
}

// Finding 13: an endpoint URL is checked at creation with the dialer's classification, which
// refuses every IANA special-purpose range: the benchmarking (198.18.0.0/15) and documentation
// (2001:db8::/32, 192.0.2.0/24) ranges the probe used, and the ones next to them.
func TestEndpointURLInSpecialPurposeRangeRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = true })
	m := e.merchant(false)
	for _, url := range []string{"https://198.18.0.1/hook", "https://198.19.255.1/hook", "https://[2001:db8::1]/hook",
		"https://192.0.2.10/hook", "https://203.0.113.5/hook", "https://[64:ff9b:1::a00:1]/hook", "https://[2002:a00:1::1]/hook",
		"https://[3fff::1]/hook", "https://192.88.99.1/hook"} {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"`+url+`","events":["*"]}`)
		if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Errorf("%s: %d %s", url, rec.Code, rec.Body)
		}
	}
	if n := e.count("webhook_endpoints"); n != 0 {
		t.Fatalf("%d endpoints stored", n)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"https://198.20.0.1/x","events":["*"]}`); rec.Code != 201 {
		t.Fatalf("a public address next to the range: %d %s", rec.Code, rec.Body)
	}
}

// Finding 7: a cell a spreadsheet would read as a formula (=, +, -, @, a tab or a carriage return
// first) is written with a leading ' (OWASP's rule for CSV injection), and a receipt paid by
// deposit shows its amount received (the read model's column) in amountReceived.
func TestExportDefusesFormulasAndShowsDepositAmounts(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	formulas := map[string]string{}
	for _, v := range []string{`=HYPERLINK("http://evil.example","click")`, "+1+2", "-3+4", "@SUM(A1)", "plain-=+"} {
		b, _ := json.Marshal(map[string]any{"lineItems": []map[string]any{{"label": "Order", "priceUsd": 1}}, "totalUsd": 1, "transactionId": v})
		rec := e.dev(m, http.MethodPost, "/api/receipts", string(b))
		if rec.Code != 201 {
			t.Fatalf("receipt %q: %d %s", v, rec.Code, rec.Body)
		}
		formulas[decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)] = v
	}
	paid := e.receiptFor(m, "12.34")
	e.depositCredit(paid, "0x01", "USDC", "12340000", true)
	waitUntil(t, "paid by deposit", 10*time.Second, func() bool { return e.status(m, paid)["status"] == "paid" })

	out := e.dev(m, http.MethodGet, "/api/exports/receipts.csv", "")
	if out.Code != 200 {
		t.Fatalf("export: %d %s", out.Code, out.Body)
	}
	rows := map[string][]string{}
	for _, r := range readCSV(t, out.Body.String())[1:] {
		rows[r[0]] = r
	}
	for id, v := range formulas {
		want := "'" + v
		if v == "plain-=+" {
			want = v
		}
		if got := rows[id][12]; got != want {
			t.Errorf("transactionId %q exported as %q, want %q", v, got, want)
		}
	}
	// The API trims what it stores; a cell that begins with a tab or a carriage return is defused
	// the same way.
	cells := []string{"\tx", "\r=1", "ok", ""}
	if defuseFormulas(cells); strings.Join(cells, "|") != "'\tx|'\r=1|ok|" {
		t.Errorf("tab and carriage return: %q", cells)
	}
	if got := rows[paid][9]; got != "12.34" {
		t.Errorf("amountReceived of a deposit-paid receipt: %q, want 12.34 (row %q)", got, rows[paid])
	}
}

// Finding 4 through the route: 30 hints with random well-formed hashes answer 200 twenty times
// (kept, waiting) and then 429 rate_limited, and the receipt's history (its stream) stays one
// event long.
func TestPaymentHintsAreLimitedAndKeptOutOfTheHistory(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	id := e.receiptFor(m, "9")
	codes := map[int]int{}
	// The hour slides: the limit lifts when the first hint leaves it.
	reset := float64(e.clk.Now().Add(time.Hour).UnixMilli())
	for n := range 30 {
		body := fmt.Sprintf(`{"token":"USDC","transactionHash":"0x%064x","buyerWallet":"0x%040x"}`, 0x5eed00+n, 0xb0b)
		rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/payment", body: body})
		codes[rec.Code]++
		if b := decode(t, rec); rec.Code == http.StatusTooManyRequests && (b["error"] != "rate_limited" || b["resetAt"] != reset) {
			t.Fatalf("limited hint: %s, want resetAt %.0f", rec.Body, reset)
		}
	}
	if codes[200] != 20 || codes[429] != 10 {
		t.Fatalf("answers %v, want 20 200s and 10 429s", codes)
	}
	if h := e.history(m, id); len(h) != 1 {
		t.Fatalf("the receipt's history grew to %v", h)
	}
}
