package receipt

import "testing"

// BenchmarkConfirmDeposit: the decision at a paid transfer's confirming block (ObserveDeposit)
// and the fold of its events, as the deposit detector makes it for each of the receipts a block
// pays (issue 38).
func BenchmarkConfirmDeposit(b *testing.B) {
	s := depositReceipt()
	seen := transfer("0x5c1ba1f1e5b1d2c6a5e8f3b4d7c2a9e0f1b3c5d7e9a1b3c5d7e9f1a3b5c7d9e1", "USDC", "12310000", 6,
		"0x9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d")
	s = evolved(b, s, DepositObservation{Transfer: seen, At: 5})
	b.ReportAllocs()
	for b.Loop() {
		if st := evolved(b, s, DepositObservation{Transfer: seen, Confirmed: true, At: 6}); st.Status != StatusPaid {
			b.Fatalf("status %s, want paid", st.Status)
		}
	}
}

func evolved(b *testing.B, s State, o DepositObservation) State {
	evs, err := ObserveDeposit(s, o)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s
}
