package receipt

import (
	"errors"
	"testing"
)

// The rules of swept.go: what is unswept per token, recording once per (transaction, token),
// status unchanged, a later transfer unswept again.
func TestRecordSweeps(t *testing.T) {
	t.Parallel()
	s := depositReceipt()
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0xA1", "USDC", "12310000", 6, "0xb1"), Confirmed: true})
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0xA2", "USDT", "5", 6, "0xb1"), Confirmed: true})
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0xA3", "USDC", "7", 6, "0xb1")}) // seen, not confirmed
	if s.Status != StatusPaid || s.Swept() || len(s.Unswept()) != 2 || s.Unswept()["USDC"].String() != "12310000" || s.Unswept()["USDT"].String() != "5" {
		t.Fatalf("before the sweep: %s %v", s.Status, s.Unswept())
	}
	// The sweep moves the whole balance, unconfirmed funds too.
	sweeps := []DepositSwept{{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "12310007", BlockNumber: 9, At: 3},
		{TransactionHash: "0xS1", Token: "USDT", AmountUnits: "5", BlockNumber: 9, At: 3}}
	evs, err := RecordSweeps(s, sweeps)
	if err != nil || len(evs) != 2 {
		t.Fatalf("RecordSweeps = %v, %v", evs, err)
	}
	for _, e := range evs {
		s = Evolve(s, e)
	}
	if s.Status != StatusPaid || !s.Swept() || len(s.Sweeps) != 2 {
		t.Fatalf("after the sweep: %s %v %v", s.Status, s.Unswept(), s.Sweeps)
	}
	// Reported again (a recovery, another instance): nothing to record.
	if evs, err := RecordSweeps(s, sweeps); err != nil || len(evs) != 0 {
		t.Fatalf("again: %v %v", evs, err)
	}
	// The unconfirmed one confirms: already swept. A later transfer: unswept again.
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0xA3", "USDC", "7", 6, "0xb1"), Confirmed: true})
	if !s.Swept() {
		t.Fatalf("a swept transfer confirmed: %v", s.Unswept())
	}
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0xA4", "ETH", "1000", 18, "0xb2"), Confirmed: true})
	if s.Swept() || s.Unswept()["ETH"].String() != "1000" {
		t.Fatalf("a later transfer: %v", s.Unswept())
	}

	for name, c := range map[string]struct {
		s   State
		e   DepositSwept
		err error
	}{
		"no receipt":   {State{}, sweeps[0], ErrNotFound},
		"no deposit":   {Evolve(State{}, Generated{ReceiptID: "x", Total: 1, LineItems: []LineItem{{Amount: 1}}}), sweeps[0], ErrState},
		"zero amount":  {s, DepositSwept{TransactionHash: "0xS2", Token: "USDC", AmountUnits: "0"}, ErrAmount},
		"not a number": {s, DepositSwept{TransactionHash: "0xS2", Token: "USDC", AmountUnits: "1.5"}, ErrAmount},
		"no token":     {s, DepositSwept{TransactionHash: "0xS2", AmountUnits: "1"}, ErrAmount},
		"no tx hash":   {s, DepositSwept{Token: "USDC", AmountUnits: "1"}, ErrAmount},
	} {
		if _, err := RecordSweeps(c.s, []DepositSwept{c.e}); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", name, err, c.err)
		}
	}
	if d, err := Decode(EventDepositSwept, []byte(`{"transactionHash":"0xS1","token":"USDC","amountUnits":"1","blockNumber":9,"at":3}`)); err != nil || d != (DepositSwept{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "1", BlockNumber: 9, At: 3}) {
		t.Fatalf("Decode = %#v, %v", d, err)
	}
}
