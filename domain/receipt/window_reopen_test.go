package receipt

import (
	"strings"
	"testing"
)

// TestAStuckACHReceiptIsReopened: a stream written before stop 69 (the ACH payment accepted, its
// short completion recorded as PaymentIgnored without reopened, decoded from its stored JSON)
// leaves the receipt ach_pending on an ended attempt. ReopenStuckACH makes it pending with a
// PaymentIgnored that records no payment; its window then fails it. Nothing else is reopened: an
// accepted payment still settling, another session's short success, a reopened receipt.
func TestAStuckACHReceiptIsReopened(t *testing.T) {
	t.Parallel()
	old, err := Decode(EventPaymentIgnored, []byte(`{"attemptId":"a","verifiedBy":"processor","transactionHash":"0x`+strings.Repeat("1", 64)+
		`","token":"USD","amountUnits":"600","decimals":2,"why":"underpaid: the processor reported 6.00 USD of the 10.00 USD due (session cos_1)","statusAtArrival":"ach_pending","at":3600010}`))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	accepted := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", At: 2}, ACHAccepted{AttemptID: "a", At: 5})
	stuck := withEvents(t, accepted, old)
	if stuck.Status != StatusACHPending || !stuck.ACHStuck() {
		t.Fatalf("before stop 69's stream: status %s, stuck %v", stuck.Status, stuck.ACHStuck())
	}
	if evs, _ := Expire(stuck, winEnd+20, monitor); len(evs) != 0 {
		t.Fatalf("the stuck receipt expired as it was: %v", types(evs))
	}
	evs := ReopenStuckACH(stuck, winEnd+20)
	st := apply(t, stuck, evs, nil)
	ig, ok := onlyIgnored(evs)
	if !ok || !ig.Reopened || ig.AttemptID != "a" || ig.TransactionHash != "" || ig.AmountUnits != "" || st.Status != StatusPending || st.ACHStuck() {
		t.Fatalf("reopened: %s %+v, status %s", types(evs), ig, st.Status)
	}
	if again := ReopenStuckACH(st, winEnd+30); len(again) != 0 {
		t.Fatalf("reopened twice: %v", types(again))
	}
	if len(st.EndedAttempts) != 1 {
		t.Fatalf("ended attempts after the reopening: %v", st.EndedAttempts)
	}
	if exp := expired(t, st); exp.Status != StatusFailed {
		t.Fatalf("the reopened receipt's window: %s", exp.Status)
	}
	if evs := ReopenStuckACH(accepted, winEnd+20); len(evs) != 0 || accepted.ACHStuck() {
		t.Fatalf("an accepted payment still settling was reopened: %v", types(evs))
	}
	other := withEvents(t, Evolve(windowed(), AttemptStarted{AttemptID: "z", Kind: "onramp", SessionID: "cos_0", At: 1}),
		AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", At: 2}, ACHAccepted{AttemptID: "a", At: 5},
		PaymentIgnored{AttemptID: "z", VerifiedBy: "processor", Why: "underpaid", StatusAtArrival: StatusACHPending, At: 9})
	if evs := ReopenStuckACH(other, winEnd+20); len(evs) != 0 {
		t.Fatalf("another session's short success reopened the accepted payment: %v", types(evs))
	}
}
