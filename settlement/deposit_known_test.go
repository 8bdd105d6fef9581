package settlement_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// Issue 38: the open deposits of receipts named at the version the read model holds come without
// their state's facts (the detector fills them from the states it holds, FillFromState), the same
// facts as a full read; a receipt named at another version (changed since) comes with its own.
// The detector that holds both then confirms both at their depth.
func TestOpenDepositsKnownAtVersion(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	held, changed := e.receipt(1000), e.receipt(2000)
	d := e.detector()
	e.step(d)
	e.mined(e.payToken(e.usdc, held.DepositAddress(), 10_000_000), e.payToken(e.usdc, changed.DepositAddress(), 20_000_000))
	e.step(d)
	store, now := pgstore.NewDeposits(e.pool), time.Now()
	full := map[string]settlement.OpenDeposit{}
	all, err := store.Open(e.ctx, now, 24*time.Hour, settlement.DefaultLateWatch)
	e.ok(err)
	for _, o := range all {
		full[o.ReceiptID] = o
	}
	h, c := held.Receipt.ReceiptID, changed.Receipt.ReceiptID
	version := func(id string) uint64 { return e.last(id).Version }
	got, err := store.OpenKnown(e.ctx, now, 24*time.Hour, settlement.DefaultLateWatch, map[string]uint64{h: version(h), c: version(c) - 1})
	e.ok(err)
	if len(got) != 2 {
		t.Fatalf("%d open deposits, want 2", len(got))
	}
	for _, o := range got {
		want := full[o.ReceiptID]
		want.Known = o.ReceiptID == h
		if o.Known != want.Known || o.Version != version(o.ReceiptID) {
			t.Fatalf("receipt %s: known %v at version %d, want %v at %d", o.ReceiptID, o.Known, o.Version, want.Known, version(o.ReceiptID))
		}
		if o.Known {
			if len(o.Unconfirmed) != 0 {
				t.Fatalf("a known receipt read with its credits: %+v", o.Unconfirmed)
			}
			if !settlement.FillFromState(&o, e.state(h)) {
				t.Fatal("a watched deposit left out")
			}
		}
		if len(o.Unconfirmed) != 1 || !reflect.DeepEqual(o, want) {
			t.Fatalf("receipt %s:\n got %+v\nwant %+v", o.ReceiptID, o, want)
		}
	}
	e.commit()
	e.step(d)
	e.want(h, receipt.StatusPaid, "10.00")
	e.want(c, receipt.StatusPaid, "20.00")
}
