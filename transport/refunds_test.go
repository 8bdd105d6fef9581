package transport

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// concurrentRefunds sends n refunds of amount for receipt id at once and returns their codes.
func (e *env) concurrentRefunds(m merchant, id, amount string, n int) map[int]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			body := fmt.Sprintf(`{"receiptId":%q,"reason":"split refund","amountUsd":%s,"transactionHash":"0x%064x"}`, id, amount, i+1)
			rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body)
			// A refund still contended after the pipeline's conflict budget (10 s of re-deciding:
			// a loaded CI machine, 20 writers) is answered 409 conflict, "nothing was changed,
			// retry": the client retries it, as the answer says. What must never come is a 500
			// or a refund taken twice.
			for try := 0; try < 5 && rec.Code == http.StatusConflict && strings.Contains(rec.Body.String(), `"conflict"`); try++ {
				e.t.Logf("refund %d: 409 conflict, retried as the answer asks", i)
				rec = e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body)
			}
			mu.Lock()
			codes[rec.Code]++
			mu.Unlock()
			if rec.Code != 200 && !strings.Contains(rec.Body.String(), `"invalid_input"`) {
				e.t.Errorf("refund %d: %d %s", i, rec.Code, rec.Body)
			}
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

// 20 partial refunds at once that add up to exactly the total all go through: a version
// conflict is re-decided on a fresh load, never a 500. (They used to answer 500 about half the
// time: "expected version 11, actual 12".)
func TestConcurrentRefundsThatFitAllSucceed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "201")
	e.processorEvent("evt_c1", id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("1", 64)+`"`)
	codes := e.concurrentRefunds(m, id, "10.05", 20)
	if codes[200] != 20 {
		t.Fatalf("answers %v, want 20 x 200", codes)
	}
	if st := e.status(m, id); st["status"] != "refunded" {
		t.Fatalf("status after the refunds: %v", st["status"])
	}
}

// The steps: a paid receipt of 100.50 and 20 refunds of 10.05 at once. Exactly the ten
// that fit go through and the others are refused by the domain rule (400), never 500.
func TestConcurrentRefundsOnlyTheRuleRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "100.50")
	e.processorEvent("evt_c2", id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("1", 64)+`"`)
	codes := e.concurrentRefunds(m, id, "10.05", 20)
	if codes[200] != 10 || codes[400] != 10 {
		t.Fatalf("answers %v, want 10 x 200 and 10 x 400", codes)
	}
	if st := e.status(m, id); st["status"] != "refunded" {
		t.Fatalf("status after the refunds: %v", st["status"])
	}
}

// Issue 41: a receipt paid through the onramp keeps the merchant's word, and its reads say so:
// the status read and GET /api/receipts/{id} carry refundedUsd and refunds with proof merchant;
// the history records the proof; a hash already counted for a refund is 409 conflict, on this
// receipt or another.
func TestRefundReadsSayTheProofAndAHashCountsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id, other := e.receiptFor(m, "40"), e.receiptFor(m, "40")
	for i, r := range []string{id, other} {
		e.processorEvent(fmt.Sprintf("evt_p%d", i), r, "att_1", fmt.Sprintf("cos_%d", i), "fulfillment_complete", fmt.Sprintf(`,"transactionHash":"0x%064x"`, i+1))
	}
	hash := "0x" + strings.Repeat("ab", 32)
	body := `{"receiptId":"` + id + `","reason":"damaged","amountUsd":10,"transactionHash":"` + hash + `"}`
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body); rec.Code != 200 {
		t.Fatalf("refund: %d %s", rec.Code, rec.Body)
	}
	want := map[string]any{"amountUsd": 10.0, "token": nil, "amount": nil, "to": nil, "transactionHash": hash, "state": "processed",
		"reason": "damaged", "proof": "merchant", "unknownTransfer": nil}
	st := e.status(m, id)
	got := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id, ""))["receipt"].(map[string]any)
	for name, v := range map[string]map[string]any{"status read": st, "receipt": got} {
		refunds, _ := v["refunds"].([]any)
		if v["refundedUsd"] != 10.0 || len(refunds) != 1 || fmt.Sprint(refunds[0]) != fmt.Sprint(want) {
			t.Fatalf("%s: refundedUsd %v refunds %v", name, v["refundedUsd"], v["refunds"])
		}
	}
	for _, r := range []string{id, other} {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+r+`","reason":"again","amountUsd":1,"transactionHash":"0x`+strings.Repeat("AB", 32)+`"}`)
		if b := decode(t, rec); rec.Code != 409 || b["error"] != "conflict" {
			t.Fatalf("hash reused on %s: %d %v", r, rec.Code, b)
		}
	}
	if st := e.status(m, other); st["refundedUsd"] != 0.0 || len(st["refunds"].([]any)) != 0 {
		t.Fatalf("the other receipt: %v %v", st["refundedUsd"], st["refunds"])
	}
}
