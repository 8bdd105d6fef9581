package receipt

import "testing"

// A Transfer log of 0 tokens moves nothing: anyone can emit one to a deposit address
// (transferFrom(anyone, deposit, 0) needs no allowance), naming any sender. It used to be
// credited: the receipt went pending (payment detected, its webhook) with that transaction as its
// hash and that sender as its buyer, and each such log grew the receipt's stream. The chain
// adapter already drops a 0-value ETH transaction; a token transfer of nothing is no payment
// either. One unit is.
func TestATransferOfNothingIsNoPayment(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, units string
		credited    bool
	}{
		{"zero", "0", false},
		{"zero written long", "000", false},
		{"negative", "-1", false},
		{"not a number", "12.5", false},
		{"one base unit", "1", true},
		{"the total", "12310000", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := depositReceipt()
			for _, o := range []DepositObservation{
				{Transfer: transfer("0x1", "USDC", c.units, 6, "0xb1"), At: 2},
				{Transfer: transfer("0x1", "USDC", c.units, 6, "0xb1"), Confirmed: true, At: 3},
			} {
				s, _ = observe(t, s, o)
			}
			if credited := len(s.Credits) == 1; credited != c.credited {
				t.Fatalf("credits %v, want credited %v", s.Credits, c.credited)
			}
			if !c.credited && (s.Status != StatusGenerated || s.TransactionHash() != "" || s.AmountReceived() != "") {
				t.Fatalf("status %s hash %q received %q after a transfer of %s", s.Status, s.TransactionHash(), s.AmountReceived(), c.units)
			}
		})
	}
}
