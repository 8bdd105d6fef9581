package portal_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/apirecord"
	"github.com/payledger/payledger/transport/portal"
	"github.com/payledger/payledger/transport/transporttest"
)

func TestMain(m *testing.M) { apirecord.Main(m) }

// TestPortalPaymentRequestAndQR: the request, its QR code and the portal view name the receipt's
// own deposit address (DESIGN 9), never the merchant's split, and the end of the payment window.
func TestPortalPaymentRequestAndQR(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "12.34")
	split := common.HexToAddress("0x" + strings.Repeat("c", 40))
	deposit := chain.DepositAddress(transporttest.PortalFactory, id, split).Hex()
	usdc := common.HexToAddress(transporttest.PortalUSDC).Hex()
	want := "ethereum:" + usdc + "@1337/transfer?address=" + deposit + "&uint256=12340000"

	rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/request?token=USDC"})
	var r portal.PaymentRequest
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &r) != nil || r.URI != want || r.Amount != "12.34" || r.AmountUnits != "12340000" ||
		r.Recipient != deposit || r.Recipient == split.Hex() {
		t.Fatalf("USDC request: %d %s; want the deposit %s", rec.Code, rec.Body, deposit)
	}
	view := transporttest.Decode(t, e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id}))["receipt"].(map[string]any)
	created, _ := view["createdAt"].(float64)
	if r.ExpiresAt != int64(created)+time.Hour.Milliseconds() || view["expiresAt"] != float64(r.ExpiresAt) || view["depositAddress"] != deposit ||
		view["amountRequired"] != "12.34" || view["amountReceived"] != nil || view["paidLate"] != false {
		t.Fatalf("expiresAt %d; portal view %v", r.ExpiresAt, view)
	}
	page := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/portal/" + id}).Body.String()
	if !strings.Contains(page, fmt.Sprintf(`"expiresAt":%d`, r.ExpiresAt)) || !strings.Contains(page, `id="time-left"`) {
		t.Fatalf("the page does not carry the window's end %d:\n%s", r.ExpiresAt, page)
	}
	rec = e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/qr?token=USDC"})
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" {
		t.Fatalf("qr: %d %v", rec.Code, rec.Header())
	}
	if got := qrText(t, rec.Body.Bytes()); got != want {
		t.Fatalf("QR decodes to %s, want %s", got, want)
	}

	// ETH: the latest quote, in wei; none yet is refused, as is a token the chain lacks.
	if rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/qr?token=ETH"}); rec.Code != 400 {
		t.Fatalf("ETH without a quote: %d %s", rec.Code, rec.Body)
	}
	for _, tok := range []string{"DOGE", "USDT", ""} {
		if rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/qr?token=" + tok}); rec.Code != 400 || !strings.Contains(rec.Body.String(), "invalid_input") {
			t.Fatalf("token %q: %d %s", tok, rec.Code, rec.Body)
		}
	}
	if err := readmodels.NewPrices(e.Pool).Set(context.Background(), []readmodels.Price{{Asset: "ETH", USDPrice: "3000", SetAt: time.Now(), SetBy: "t"}}); err != nil {
		t.Fatal(err)
	}
	if rec := e.Do(transporttest.Req{Method: http.MethodPost, Path: "/api/portal/" + id + "/quote", Body: `{"token":"ETH"}`}); rec.Code != 200 {
		t.Fatalf("quote: %d %s", rec.Code, rec.Body)
	}
	rec = e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/request?token=ETH"})
	// 12.34 / 3000 = 0.00411333 (8 places) = 4113330000000000 wei
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &r) != nil || r.URI != "ethereum:"+deposit+"@1337?value=4113330000000000" || r.Amount != "0.00411333" {
		t.Fatalf("ETH request: %d %s", rec.Code, rec.Body)
	}
	if rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/rcpt_nope/qr?token=USDC"}); rec.Code != 404 {
		t.Fatalf("unknown receipt: %d", rec.Code)
	}
	// A merchant without a split: its receipts have no deposit address, so no request.
	bare := e.ReceiptFor(e.Merchant(false), "5")
	if rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + bare + "/request?token=USDC"}); rec.Code != http.StatusForbidden ||
		!strings.Contains(rec.Body.String(), "split_required") {
		t.Fatalf("no deposit address: %d %s", rec.Code, rec.Body)
	}
}

func TestPortalPageEscapesAndCSP(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	if _, err := readmodels.NewShops(e.Pool).Update(context.Background(), m.Wallet, time.Now(), func(c *readmodels.ShopConfig) error {
		c.Name = `<script>alert("shop")</script>Shop`
		c.Theme.PrimaryColor, c.Theme.BrandLogoURL = `#123456`, "javascript:alert(1)"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rec := e.Dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"<script>alert('line')</script>Tea","priceUsd":5}],"totalUsd":5}`)
	if rec.Code != 201 {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	id := transporttest.Decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	rec = e.Do(transporttest.Req{Method: http.MethodGet, Path: "/portal/" + id})
	html, csp := rec.Body.String(), rec.Header().Get("Content-Security-Policy")
	if rec.Code != 200 || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("page: %d CSP %q", rec.Code, csp)
	}
	if strings.Contains(html, "<script>alert") || strings.Contains(html, "javascript:") ||
		!strings.Contains(html, "&lt;script&gt;alert(&#34;shop&#34;)&lt;/script&gt;Shop") || !strings.Contains(html, "&lt;script&gt;alert(&#39;line&#39;)&lt;/script&gt;Tea") {
		t.Fatalf("not escaped:\n%s", html)
	}
	if !strings.Contains(html, `data-primary="#123456"`) || !strings.Contains(html, `<option value="USDC" selected>`) {
		t.Fatalf("branding or currency choice missing:\n%s", html)
	}
	// The page data block is JSON that cannot close its script element.
	start := strings.Index(html, `<script type="application/json" id="page-data">`)
	end := strings.Index(html[start:], "</script>")
	var data map[string]any
	if start < 0 || json.Unmarshal([]byte(html[start+len(`<script type="application/json" id="page-data">`):start+end]), &data) != nil || data["receiptId"] != id {
		t.Fatalf("page data block: %s", html[start:start+end])
	}
	rec = e.Do(transporttest.Req{Method: http.MethodGet, Path: "/pay/rcpt_nope"})
	if rec.Code != 404 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || !strings.Contains(rec.Body.String(), "Receipt not found") {
		t.Fatalf("unknown receipt page: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

func TestPortalEventsStream(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "3")
	srv := httptest.NewServer(e.Srv)
	defer srv.Close()
	if resp, err := http.Get(srv.URL + "/api/portal/rcpt_nope/events"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("unknown receipt: %v %v", resp, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/portal/"+id+"/events", nil)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %v", resp.StatusCode, resp.Header)
	}
	lines := bufio.NewScanner(resp.Body)
	next := func() map[string]any {
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				var ev map[string]any
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatalf("data line %q: %v", data, err)
				}
				return ev
			}
		}
		t.Fatalf("stream ended: %v", lines.Err())
		return nil
	}
	if ev := next(); ev["status"] != "generated" || ev["receiptId"] != id || ev["paid"] != false || ev["amountRequired"] != "3.00" ||
		ev["amountReceived"] != nil || ev["paidLate"] != false {
		t.Fatalf("first event %v", ev)
	}
	start := time.Now()
	// The deposit follower sees a transfer (a hint alone no longer changes the receipt, DESIGN 10).
	e.DepositCredit(id, "0x"+strings.Repeat("ab", 32), "USDC", "1000000", false)
	if ev := next(); ev["status"] != "pending" {
		t.Fatalf("second event %v", ev)
	}
	d := time.Since(start)
	t.Logf("pending pushed %v after the transfer was recorded (listening for announcements: %v)", d.Round(time.Millisecond), e.Srv.Listening())
	if d > 2*time.Second {
		t.Errorf("the change took %v to be pushed", d)
	}
	// The server shutting down ends the stream (it must not hold the drain).
	if err := e.Srv.Echo.Server.Shutdown(context.Background()); err != nil { // runs the server's shutdown hooks
		t.Fatal(err)
	}
	ended := make(chan bool, 1)
	go func() {
		for lines.Scan() {
		}
		ended <- true
	}()
	select {
	case <-ended:
	case <-time.After(3 * time.Second):
		t.Fatal("the stream outlived the shutdown")
	}
}
