package dashboard_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/payledger/payledger/transport/transporttest"
)

// excessHarness runs the page's refund.js (argv[2]) with the wallet box's attributes (argv[3]),
// a browser wallet that sends at once and a fetch that records what it is asked; it clicks the
// button argv[4] and prints the request the script posted.
const excessHarness = `
const fs = require("fs"), vm = require("vm");
const page = JSON.parse(process.argv[3]), posted = [];
function el(attrs, value) {
  return { attrs: attrs, dataset: {}, value: value || "", hidden: true, disabled: false, textContent: "", listeners: {},
    getAttribute(n) { return n in this.attrs ? this.attrs[n] : null; }, addEventListener(t, f) { this.listeners[t] = f; } };
}
const box = el({}); box.dataset = page.box;
const ids = { "wallet-refund": box, "refund-amount": page.amount ? el({}, page.amount) : null, "refund-reason": el({}, "Customer request"),
  "wallet-refund-amount": el({}), "wallet-refund-error": el({}), "refund-wallet": page.amount ? el({}) : null, "refund-hash": el({}),
  "refund-excess": page.excess ? el({ "data-amount": page.excess }) : null };
const idEl = el({}, page.receiptId);
ids.refund = { querySelector: (s) => s === '[name="receiptId"]' ? idEl : null };
const document = { getElementById: (id) => ids[id] || null, querySelectorAll: () => [], querySelector: () => null };
const ethereum = { request: (r) => Promise.resolve(r.method === "eth_requestAccounts" ? ["0xmerchant"] :
  r.method === "eth_chainId" ? "0x" + Number(page.box.chainId).toString(16) : "0x" + (process.argv[4] === "refund-excess" ? "ab" : "cd").repeat(32)) };
const fetch = (url, o) => { posted.push({ url: url, body: JSON.parse(o.body) }); return Promise.resolve({ ok: true, json: () => Promise.resolve({}) }); };
vm.runInNewContext(fs.readFileSync(process.argv[2], "utf8"), { document: document, window: { ethereum: ethereum }, fetch: fetch, BigInt: BigInt,
  location: { pathname: "/", reload: () => { console.log(JSON.stringify({ posted: posted, error: ids["wallet-refund-error"].textContent })); } },
  setTimeout: () => {} });
ids[process.argv[4]].listeners.click();
`

// pageAttr is the value of the first attr="..." of the page after the text at.
func pageAttr(t *testing.T, page, at, attr string) string {
	t.Helper()
	i := strings.Index(page, at)
	if i < 0 {
		t.Fatalf("the page lacks %s", at)
	}
	m := regexp.MustCompile(`\s` + regexp.QuoteMeta(attr) + `="([^"]*)"`).FindStringSubmatch(page[i:])
	if m == nil {
		t.Fatalf("the page lacks %s after %s", attr, at)
	}
	return m[1]
}

// clickRefund loads the receipt's page as the merchant's browser would, runs its refund.js with a
// wallet that sends, clicks button and answers the one request the script posts.
// It answers the body posted and the service's answer (the receipt read).
func clickRefund(t *testing.T, e *transporttest.Env, m transporttest.Merchant, id, button string) (string, map[string]any) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: refund.js cannot be run")
	}
	_, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies)
	_, script, _ := e.Get(pageAttr(t, page, `<script src="`+"/", "src"), m.Cookies)
	box := map[string]string{}
	for _, a := range []string{"to", "token-address", "decimals", "total-cents", "total-units", "chain-id", "max-cents"} {
		key := regexp.MustCompile(`-(\w)`).ReplaceAllStringFunc(a, func(s string) string { return strings.ToUpper(s[1:]) })
		box[key] = pageAttr(t, page, `id="wallet-refund"`, "data-"+a)
	}
	in := map[string]any{"box": box, "receiptId": id}
	if strings.Contains(page, `id="refund-amount"`) { // the order's refund (absent where only the excess is offered)
		in["amount"] = pageAttr(t, page, `id="refund-amount"`, "value")
	}
	if strings.Contains(page, `id="refund-excess"`) {
		in["excess"] = pageAttr(t, page, `id="refund-excess"`, "data-amount")
	}
	args, _ := json.Marshal(in)
	dir := t.TempDir()
	js, h := filepath.Join(dir, "refund.js"), filepath.Join(dir, "harness.js")
	if err := os.WriteFile(js, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h, []byte(excessHarness), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, h, js, string(args), button).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Posted []struct {
			URL  string
			Body json.RawMessage
		}
		Error string
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.Posted) != 1 || got.Posted[0].URL != "/api/receipts/refund" {
		t.Fatalf("%s clicked: the script posted %s", button, out)
	}
	rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", string(got.Posted[0].Body))
	if rec.Code != 200 {
		t.Fatalf("%s: %s answered %d %s", button, got.Posted[0].Body, rec.Code, rec.Body)
	}
	return string(got.Posted[0].Body), transporttest.Decode(t, rec)
}

// TestDashboardRefundsTheExcessApart: stop 70 made an overpaid receipt's excess refundable apart
// from the order ("excess": true), but the page's "Refund the excess" only filled the amount field
// and the wallet refund posted it as an order refund: of a 10.00 order paid 12.50, the 2.50 of
// excess left 7.50 of the order refundable and refundedUsd read 2.50 of an order nobody refunded.
// The button now sends the unrefunded excess (ExcessUnrefundedCents) and posts it with
// "excess": true; the order's wallet refund still posts an order refund.
func TestDashboardRefundsTheExcessApart(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	over := e.ReceiptFor(m, "10")
	e.DepositCredit(over, "0x"+strings.Repeat("1", 64), "USDC", "12500000", true)

	body, b := clickRefund(t, e, m, over, "refund-excess")
	if !strings.Contains(body, `"excess":true`) || !strings.Contains(body, `"amountUsd":2.5`) {
		t.Fatalf("Refund the excess posted %s, want the 2.50 with excess: true", body)
	}
	refunds, _ := b["refunds"].([]any)
	if len(refunds) != 1 || refunds[0].(map[string]any)["excess"] != true || b["unrefundedUsd"] != 10.0 || b["unrefundedExcessUsd"] != 0.0 {
		t.Fatalf("after the excess's refund: %v", b)
	}
	_, page, _ := e.Get("/dashboard/receipts/"+over, m.Cookies)
	if strings.Contains(page, `id="refund-excess"`) || pageAttr(t, page, `id="refund-amount"`, "value") != "10.00" {
		t.Fatalf("after the excess's refund the page offers the excess again or not the order's 10.00\n%s", page)
	}
	body, b = clickRefund(t, e, m, over, "refund-wallet")
	if strings.Contains(body, `"excess"`) || !strings.Contains(body, `"amountUsd":10`) || b["unrefundedUsd"] != 0.0 {
		t.Fatalf("Refund with wallet posted %s, want the order's 10.00 without excess; the receipt: %v", body, b)
	}
}

// TestDashboardRefundsTheExcessOfARefundedOrder: the excess was offered as min(excess, the
// order's unrefunded amount), and the form only while the order took a refund, so once the order
// was refunded in whole (or its refund claimed) the page offered nothing of the 2.50 the receipt
// still owed. It now offers "Refund the excess" alone (no order amount, no order refund button),
// and the refund it posts is of the excess.
func TestDashboardRefundsTheExcessOfARefundedOrder(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	over := e.ReceiptFor(m, "10")
	e.DepositCredit(over, "0x"+strings.Repeat("1", 64), "USDC", "12500000", true)

	body, b := clickRefund(t, e, m, over, "refund-wallet")
	if strings.Contains(body, `"excess"`) || !strings.Contains(body, `"amountUsd":10`) || b["unrefundedUsd"] != 0.0 || b["unrefundedExcessUsd"] != 2.5 {
		t.Fatalf("the order's refund posted %s; the receipt: %v", body, b)
	}
	_, page, _ := e.Get("/dashboard/receipts/"+over, m.Cookies)
	if !strings.Contains(page, `id="refund-excess" data-amount="2.50"`) || !strings.Contains(page, `id="refund-excess-only"`) ||
		strings.Contains(page, `id="refund-wallet"`) || strings.Contains(page, `id="refund-amount"`) || strings.Contains(page, `id="refund-submit"`) {
		t.Fatalf("the order's refund claimed: the page should offer the 2.50 of excess alone\n%s", page)
	}
	body, b = clickRefund(t, e, m, over, "refund-excess")
	if !strings.Contains(body, `"excess":true`) || !strings.Contains(body, `"amountUsd":2.5`) || b["unrefundedExcessUsd"] != 0.0 {
		t.Fatalf("Refund the excess posted %s; the receipt: %v", body, b)
	}
	_, page, _ = e.Get("/dashboard/receipts/"+over, m.Cookies)
	if strings.Contains(page, `id="refund-excess"`) || strings.Contains(page, `id="wallet-refund"`) {
		t.Fatalf("nothing is left to refund, yet the page offers a refund\n%s", page)
	}
}
