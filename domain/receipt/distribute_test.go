package receipt

import (
	"errors"
	"testing"
)

// TestDistributeSplit is the rule "reconciled follows paid (split distributed)" as a table: only
// a paid receipt is reconciled, a reconciled one stays as it is, and the event keeps every
// release hash and amount.
func TestDistributeSplit(t *testing.T) {
	t.Parallel()
	pendingA := then(t, started(generated(), "a"))(Submit(started(generated(), "a"), PaymentSubmitted{AttemptID: "a", Source: "wallet", At: 3}))
	paid := then(t, pendingA)(Confirm(pendingA, confirm("a")))
	d := SplitDistributed{TransactionHashes: []string{"0x1", "0x2"}, Token: "USDC",
		Amounts: []SplitAmount{{Recipient: "0xm", Amount: "9950", TransactionHash: "0x1"}, {Recipient: "0xp", Amount: "50", TransactionHash: "0x2"}}, At: 10}
	reconciled := then(t, paid)(DistributeSplit(paid, d))
	failed := then(t, pendingA)(Fail(pendingA, fail("a")))
	refundRequested := then(t, paid)(Refund(paid, 1, "r", "", "m", 11))
	cases := []struct {
		name      string
		from      State
		wantEvent bool
		wantErr   error
	}{
		{"unknown receipt", State{}, false, ErrNotFound},
		{"generated", generated(), false, ErrState},
		{"pending", pendingA, false, ErrState},
		{"failed", failed, false, ErrState},
		{"refund requested", refundRequested, false, ErrState},
		{"paid -> reconciled", paid, true, nil},
		{"reconciled again: nothing", reconciled, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DistributeSplit(c.from, d)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if (len(evs) == 1) != c.wantEvent {
				t.Fatalf("events = %v", evs)
			}
		})
	}
	if reconciled.Status != StatusReconciled || reconciled.SplitTxHash != "0x1" || reconciled.SplitAt != 10 {
		t.Fatalf("reconciled state: %+v", reconciled)
	}
}
