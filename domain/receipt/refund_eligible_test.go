package receipt

import "testing"

// TestCanRequestRefund: the dashboard's refund form (a request without a hash) is offered exactly
// when Refund accepts it.
func TestCanRequestRefund(t *testing.T) {
	paid := Evolve(started(generated(), "a"), PaymentConfirmed{AttemptID: "a", TransactionHash: "0xabc", VerifiedBy: "processor", At: 8})
	reconciled := Evolve(paid, SplitDistributed{At: 9})
	requested := Evolve(paid, RefundRequested{AmountCents: 300, Reason: "r", At: 10})
	refunded := Evolve(paid, RefundProcessed{AmountCents: 1000, Reason: "r", TransactionHash: "0x1", At: 10})
	failed := Evolve(started(generated(), "b"), fail("b"))
	for _, c := range []struct {
		name string
		s    State
		want bool
	}{
		{"missing", State{}, false},
		{"generated", generated(), false},
		{"pending", started(generated(), "a"), false},
		{"failed", failed, false},
		{"paid", paid, true},
		{"reconciled", reconciled, true},
		{"refund requested", requested, false},
		{"refunded", refunded, false},
	} {
		if got := CanRequestRefund(c.s); got != c.want {
			t.Errorf("%s (%s): CanRequestRefund = %v, want %v", c.name, c.s.Status, got, c.want)
		}
		if _, err := Refund(c.s, 0, "r", "", "m", 1); (err == nil) != c.want {
			t.Errorf("%s: Refund = %v, want accepted %v", c.name, err, c.want)
		}
	}
}
