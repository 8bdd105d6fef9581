package receipt

import (
	"errors"
	"testing"
)

func TestChainGone(t *testing.T) {
	t.Parallel()
	withDeposit := State{Exists: true, Status: StatusPending, Receipt: Generated{ReceiptID: "r", DepositAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3"}}
	marked := withDeposit
	marked.DepositChainGone = &DepositChainGone{}
	reconciled := withDeposit
	reconciled.Status = StatusReconciled
	cases := []struct {
		name   string
		s      State
		events int
		err    error
	}{
		{"no receipt", State{}, 0, ErrNotFound},
		{"no deposit address", State{Exists: true, Status: StatusGenerated}, 0, nil},
		{"already marked", marked, 0, nil},
		{"reconciled: done", reconciled, 0, nil},
		{"pending on the old chain", withDeposit, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := ChainGone(c.s, "0xold", "0xnew", 7)
			if !errors.Is(err, c.err) || len(evs) != c.events {
				t.Fatalf("events %v err %v", evs, err)
			}
			if c.events == 0 {
				return
			}
			after := Evolve(c.s, evs[0])
			if after.DepositChainGone == nil || after.Status != c.s.Status || after.DepositChainGone.PreviousGenesis != "0xold" {
				t.Fatalf("after %+v", after)
			}
		})
	}
}
