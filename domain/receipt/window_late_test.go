package receipt

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestLateTransferIgnoredWithWhatTheChainShowed: transfers confirmed after an expired receipt's
// late-payment watch are credited (they did arrive), recorded as PaymentIgnored with the sender,
// token, base units and block, pay nothing whether they cover or not, and are refundable with
// proof like any funds that paid nothing: valued by ReceivedCents, their senders among the payers.
func TestLateTransferIgnoredWithWhatTheChainShowed(t *testing.T) {
	s := windowed()
	s.Receipt.DepositAddress = "0xdeposit"
	s = expired(t, s)
	part := DepositTransferSeen{TransactionHash: "0xL1", LogIndex: 3, BlockNumber: 90, BlockHash: "0xb90", Sender: "0xlate",
		Token: "USDC", AmountUnits: "2500000", Decimals: 6}
	s, evs := observe(t, s, DepositObservation{Transfer: part, At: lateEnd + 5})
	if types(evs) != EventDepositTransferSeen {
		t.Fatalf("seen after the watch: %s", types(evs))
	}
	s, evs = observe(t, s, DepositObservation{Transfer: part, Confirmed: true, At: lateEnd + 9})
	if types(evs) != EventDepositTransferConfirmed+","+EventPaymentIgnored {
		t.Fatalf("a partial transfer confirmed after the watch: %s", types(evs))
	}
	ig := evs[1].(PaymentIgnored)
	if ig.VerifiedBy != VerifiedByChain || ig.Sender != "0xlate" || ig.Token != "USDC" || ig.AmountUnits != "2500000" || ig.Decimals != 6 ||
		ig.LogIndex == nil || *ig.LogIndex != 3 || ig.BlockNumber != 90 || ig.BlockHash != "0xb90" || ig.TransactionHash != "0xL1" {
		t.Fatalf("what the ignored payment says: %+v", ig)
	}
	if s.Status != StatusFailed || s.ReceivedCents() != 250 || s.RefundableCents() != 250 || !CanClaimRefund(s) {
		t.Fatalf("after a late partial transfer: %s received %d refundable %d", s.Status, s.ReceivedCents(), s.RefundableCents())
	}
	// The rest arrives, also late: covering, it still pays nothing; recorded once.
	rest := DepositTransferSeen{TransactionHash: "0xL2", LogIndex: 0, BlockNumber: 91, BlockHash: "0xb91", Sender: "0xother",
		Token: "USDC", AmountUnits: "7500000", Decimals: 6}
	s, evs = observe(t, s, DepositObservation{Transfer: rest, Confirmed: true, At: lateEnd + 20})
	if types(evs) != EventDepositTransferSeen+","+EventDepositTransferConfirmed+","+EventPaymentIgnored || s.Status != StatusFailed || s.Payment != nil {
		t.Fatalf("a covering transfer after the watch: %s, %s", types(evs), s.Status)
	}
	if _, again := observe(t, s, DepositObservation{Transfer: rest, Confirmed: true, At: lateEnd + 30}); len(again) != 0 {
		t.Fatalf("reported again: %s", types(again))
	}
	if got, err := SettleIfCovered(s, lateEnd+40); err != nil || len(got) != 0 {
		t.Fatalf("a quote after the watch: %v %v", got, err)
	}
	if s.ReceivedCents() != 1000 || !slices.Contains(s.RefundRecipients(), "0xlate") || !slices.Contains(s.RefundRecipients(), "0xother") {
		t.Fatalf("refundable %d to %v", s.ReceivedCents(), s.RefundRecipients())
	}
	s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 250, Reason: "late", TransactionHash: hashA, By: "m", At: lateEnd + 50}))
	p, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashA, Succeeded: true, BlockNumber: 99, BlockHash: "0xb99", At: lateEnd + 60,
		Transfers: []ChainTransfer{{Token: "USDC", Decimals: 6, To: "0xlate", AmountUnits: "2500000"}}})
	if !ok {
		t.Fatalf("the refund to the late payer: %s", reason)
	}
	s = then(t, s)(ProcessRefund(s, p))
	if s.Status != StatusFailed || s.RefundedCents != 250 || s.RefundableCents() != 750 {
		t.Fatalf("refunded: %s %d", s.Status, s.RefundedCents)
	}
}

// TestPaymentIgnoredOfOldHistoriesReplays: an ignored payment recorded before it said what the
// chain showed decodes and replays as before, and the same transfer reported again (now with its
// log index) is not recorded twice.
func TestPaymentIgnoredOfOldHistoriesReplays(t *testing.T) {
	old := []byte(`{"attemptId":"deposit","verifiedBy":"chain","transactionHash":"0xOLD","token":"USDC","why":"w","statusAtArrival":"failed","at":7}`)
	e, err := Decode(EventPaymentIgnored, old)
	if err != nil {
		t.Fatal(err)
	}
	if ig := e.(PaymentIgnored); ig.Sender != "" || ig.LogIndex != nil || ig.AmountUnits != "" {
		t.Fatalf("decoded: %+v", ig)
	}
	raw, _ := json.Marshal(e)
	if string(raw) != string(old) {
		t.Fatalf("re-encoded as %s", raw)
	}
	s := withEvents(t, expired(t, windowed()), e)
	li := 0
	c := PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xold", LogIndex: &li, VerifiedBy: "chain", At: lateEnd + 1}
	if evs, err := Confirm(s, c); err != nil || len(evs) != 0 {
		t.Fatalf("the old payment again: %v %v", evs, err)
	}
}
