package settlement

// The small step types of subscription charging, each alone, without
// a chain or a database: what they decide from what they are given.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/subscription"
)

func TestDueChargesPrepare(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_800_000_000_000)
	d := dueCharges{now: func() time.Time { return now }, spender: fixedSender("0xOP")}
	due := subscription.State{Exists: true, Status: subscription.StatusActive, Merchant: "0xm", Customer: "0xc", PriceUnits: "5000000",
		NextChargeAt: now.UnixMilli(), Charges: 3, ConsecutiveFailures: 1,
		Permission: subscription.Permission{Spender: "0xop", Start: now.Unix() - 10, End: now.Unix() + 10}}
	it, skip, err := d.prepare(due, "s1")
	if err != nil || skip != nil {
		t.Fatalf("due: %v %v", skip, err)
	}
	if it.row.Period != 3 || it.row.Attempt != 2 || it.row.Status != ChargeClaimed || it.amount.String() != "5000000" {
		t.Fatalf("row %+v amount %s", it.row, it.amount)
	}
	cases := []struct {
		name string
		st   func(s subscription.State) subscription.State
		want error
	}{
		{"missing", func(subscription.State) subscription.State { return subscription.State{} }, subscription.ErrNotFound},
		{"cancelled", func(s subscription.State) subscription.State { s.Status = subscription.StatusCancelled; return s }, subscription.ErrCancelled},
		{"not due", func(s subscription.State) subscription.State { s.NextChargeAt = now.UnixMilli() + 1; return s }, subscription.ErrNotDue},
	}
	for _, c := range cases {
		if _, _, err := d.prepare(c.st(due), "s1"); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	outside := due
	outside.Permission.End = now.Unix()
	if _, skip, err := d.prepare(outside, "s1"); err != nil || skip == nil || skip.Status != ResultSkipped {
		t.Fatalf("outside the permission: %+v %v", skip, err)
	}
	other := due
	other.Permission.Spender = "0xold"
	if _, skip, err := d.prepare(other, "s1"); err != nil || skip == nil || skip.Status != ResultSkipped {
		t.Fatalf("another spender: %+v %v", skip, err)
	}
}

// fixedSender is an operator account's address alone.
type fixedSender string

func (s fixedSender) Sender() string { return string(s) }

type fakeOutcomes struct {
	mined map[string]*TxOutcome
	calls int
}

func (f *fakeOutcomes) Outcomes(_ context.Context, hashes []string) ([]*TxOutcome, error) {
	f.calls++
	out := make([]*TxOutcome, len(hashes))
	for i, h := range hashes {
		out[i] = f.mined[h]
	}
	return out, nil
}

type fakeSettle struct{ settled []SettledTx }

func (f *fakeSettle) SettleTxs(_ context.Context, txs []SettledTx) error {
	f.settled = append(f.settled, txs...)
	return nil
}

func TestChargeReceiptsAwait(t *testing.T) {
	t.Parallel()
	chain := &fakeOutcomes{mined: map[string]*TxOutcome{"0xa": {Success: true, GasUsed: 21000}}}
	ledger := &fakeSettle{}
	r := chargeReceipts{chain: chain, ledger: ledger} // wait 0: one look after the last mined one
	out, err := r.await(context.Background(), []string{"0xa", "0xb"})
	if err != nil {
		t.Fatal(err)
	}
	if out["0xa"] == nil || out["0xb"] != nil {
		t.Fatalf("outcomes %v", out)
	}
	if len(ledger.settled) != 1 || ledger.settled[0].Hash != "0xa" || chain.calls != 2 {
		t.Fatalf("settled %+v after %d reads", ledger.settled, chain.calls)
	}
}
