package dashboard_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/transport/transporttest"
)

// Issue 41 item 3, the dashboard: a payment after the late-payment watch (PaymentIgnored) is
// listed as having paid nothing and offered the wallet refund ("Refund", the hash required), and
// an unconfigured token left on the deposit is listed with its contract, sender and raw amount,
// never as money; the status read carries the refundable funds' claim like any refund.
func TestDashboardRefundOfALatePaymentAndAnUnknownToken(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "10")
	change := func(decide func(receipt.State) ([]receipt.Event, error)) { t.Helper(); e.Change(id, decide) }
	change(func(receipt.State) ([]receipt.Event, error) {
		return []receipt.Event{receipt.PaymentWindowExpired{ExpiresAt: 1, MonitorUntil: 2, Code: "PORTAL_SESSION_EXPIRED", At: 2}}, nil
	})
	e.DepositCredit(id, "0x"+strings.Repeat("4", 64), "USDC", "10000000", true) // after MonitorUntil: ignored
	change(func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveUnknownToken(st, receipt.DepositUnknownToken{TransactionHash: "0x" + strings.Repeat("5", 64), LogIndex: 1, BlockNumber: 8,
			BlockHash: "0xb8", TokenAddress: "0x" + strings.Repeat("d", 40), Sender: "0xbuyer", AmountUnits: "7000000000000000000", At: 3})
	})

	_, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies)
	for _, want := range []string{`class="muted late"`, `id="wallet-refund" data-to="0xbuyer" data-token="USDC"`,
		`id="refund-amount" name="amountUsd" data-type="number" inputmode="decimal" value="10.00"`, `aria-describedby="refund-hash-hint" required>`,
		`id="refund-submit">Refund</button>`, `id="unknown-tokens"`, `<code class="token-address">0x` + strings.Repeat("d", 40) + `</code>`,
		`<td class="num amount">7000000000000000000</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if t.Failed() {
		t.Fatalf("page:\n%s", page)
	}
	rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund",
		`{"receiptId":"`+id+`","reason":"late","transactionHash":"0x`+strings.Repeat("6", 64)+`"}`)
	b := transporttest.Decode(t, rec)
	if refunds, _ := b["refunds"].([]any); rec.Code != 200 || b["status"] != "failed" || len(refunds) != 1 {
		t.Fatalf("a claim for the late payment: %d %v", rec.Code, b)
	}
	unknownRefundedFromTheRow(t, e, m, id)
}

// unknownRefundedFromTheRow (issue 41, the last part): the unconfigured token's row offers
// "Refund with wallet" (the raw amount of that contract to the sender) and the pasted hash; the
// form's fields make a claim naming the transfer, worth nothing in the receipt's currency (the
// status and refundedUsd stay), its hash 409 on reuse; the row then says the refund is pending.
func unknownRefundedFromTheRow(t *testing.T, e *transporttest.Env, m transporttest.Merchant, id string) {
	t.Helper()
	unknownTx, contract := "0x"+strings.Repeat("5", 64), "0x"+strings.Repeat("d", 40)
	_, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies)
	for _, want := range []string{`<form class="unknown-refund" data-api="/api/receipts/refund" data-method="POST"
 data-to="0xbuyer" data-token-address="` + contract + `" data-units="7000000000000000000"`,
		`<input type="hidden" name="unknownTransfer.transactionHash" value="` + unknownTx + `"><input type="hidden" name="unknownTransfer.logIndex" data-type="number" value="1">`,
		`class="primary unknown-refund-wallet">Refund with wallet</button>`, `<button type="submit" class="secondary">Record refund</button>`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the unknown token's row lacks %s:\n%s", want, page)
		}
	}
	hash := "0x" + strings.Repeat("7", 64)
	body := func(hash string, logIndex int) string {
		return fmt.Sprintf(`{"receiptId":%q,"reason":"Unconfigured token returned","transactionHash":%q,"unknownTransfer":{"transactionHash":%q,"logIndex":%d}}`,
			id, hash, unknownTx, logIndex)
	}
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", body(hash, 2)); rec.Code != http.StatusBadRequest {
		t.Fatalf("a transfer the receipt does not record: %d %s", rec.Code, rec.Body)
	}
	noLog := fmt.Sprintf(`{"receiptId":%q,"reason":"r","transactionHash":%q,"unknownTransfer":{"transactionHash":%q}}`, id, hash, unknownTx)
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", noLog); rec.Code != http.StatusBadRequest ||
		!strings.Contains(rec.Body.String(), "logIndex") {
		t.Fatalf("no logIndex: %d %s", rec.Code, rec.Body)
	}
	rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", body(hash, 1))
	b := transporttest.Decode(t, rec)
	refunds, _ := b["refunds"].([]any)
	if rec.Code != 200 || b["status"] != "failed" || b["refundedUsd"] != 0.0 || len(refunds) != 2 {
		t.Fatalf("the unknown token's claim: %d %v", rec.Code, b)
	}
	got := refunds[1].(map[string]any)
	if got["state"] != "claimed" || got["amountUsd"] != 0.0 || got["token"] != contract || got["amount"] != "7000000000000000000" || got["to"] != "0xbuyer" ||
		fmt.Sprint(got["unknownTransfer"]) != fmt.Sprint(map[string]any{"transactionHash": unknownTx, "logIndex": 1.0}) {
		t.Fatalf("the claim reads %v", got)
	}
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+id+`","reason":"again","transactionHash":"`+hash+`"}`); rec.Code != http.StatusConflict {
		t.Fatalf("the hash reused: %d %s", rec.Code, rec.Body)
	}
	_, page, _ = e.Get("/dashboard/receipts/"+id, m.Cookies)
	if !strings.Contains(page, `<td><span class="badge refund-requested">refund pending</span></td></tr>`) || strings.Contains(page, `class="unknown-refund"`) {
		t.Fatalf("the row after the claim:\n%s", page)
	}
}
