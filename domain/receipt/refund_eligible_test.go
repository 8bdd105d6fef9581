package receipt

import "testing"

// TestCanRequestRefund: the dashboard's refund form (a request without a hash) is offered exactly
// when Refund accepts it.
func TestCanRequestRefund(t *testing.T) {
	t.Parallel()
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

// TestCanClaimRefund: the refund form's hash path (Refund with wallet) is offered exactly when
// Refund takes a hash: also once a refund is requested (the refund sent covers it, ClaimableCents
// counts it) and for a failed receipt's funds that paid nothing, never for one that received none.
func TestCanClaimRefund(t *testing.T) {
	t.Parallel()
	paid := Evolve(started(generated(), "a"), PaymentConfirmed{AttemptID: "a", TransactionHash: "0xabc", VerifiedBy: "processor", At: 8})
	requested := Evolve(paid, RefundRequested{AmountCents: 300, Reason: "r", At: 10})
	refunded := Evolve(paid, RefundProcessed{AmountCents: 1000, Reason: "r", TransactionHash: "0x1", At: 10})
	failed := Evolve(started(generated(), "b"), fail("b"))
	for _, c := range []struct {
		name      string
		s         State
		want      bool
		claimable int64
	}{
		{"missing", State{}, false, 0},
		{"pending", started(generated(), "a"), false, 0},
		{"failed with nothing received", failed, false, 0},
		{"paid", paid, true, 1000},
		{"refund requested", requested, true, 1000},
		{"refunded", refunded, false, 0},
	} {
		if got := CanClaimRefund(c.s); got != c.want {
			t.Errorf("%s (%s): CanClaimRefund = %v, want %v", c.name, c.s.Status, got, c.want)
		}
		if c.want && c.s.ClaimableCents() != c.claimable {
			t.Errorf("%s: ClaimableCents = %d, want %d", c.name, c.s.ClaimableCents(), c.claimable)
		}
	}
}
