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
