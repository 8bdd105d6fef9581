package projections_test

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/settlement/pgstore"
)

// depositPayer generates receipts with deposit addresses and records transfers to them, as
// deposit detection does.
type depositPayer struct {
	t *testing.T
	s *postgres.Store
	r *projections.Runner
	n int
}

// receipt generates a receipt of 1.00 USD whose deposit sweeps to a split.
func (p *depositPayer) receipt() string {
	p.t.Helper()
	now := time.Now()
	id := commands.NewReceiptID(now)
	g := receipt.Generated{ReceiptID: id, Merchant: "0xmerchant", Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: money.Cents(100)}}, Subtotal: 100, Total: 100,
		DepositAddress: fmt.Sprintf("0x%040x", len(id)+p.n), DepositSplit: "0x" + strings.Repeat("5", 40)}
	p.n++
	if _, _, err := commands.GenerateReceipt(context.Background(), p.s, now, eventstore.Metadata{}, g); err != nil {
		p.t.Fatal(err)
	}
	return id
}

// pay records a confirmed transfer of 1.00 USDC to receipt id's deposit and waits until the read
// model has it.
func (p *depositPayer) pay(id string) {
	p.t.Helper()
	p.n++
	at := time.Now().UnixMilli()
	seen := receipt.DepositTransferSeen{TransactionHash: fmt.Sprintf("0x%064x", p.n), BlockNumber: uint64(p.n), BlockHash: fmt.Sprintf("0x%064x", p.n),
		Sender: "0x" + strings.Repeat("b", 40), Token: "USDC", AmountUnits: big.NewInt(1_000_000).String(), Decimals: 6, At: at}
	_, res, err := commands.ChangeReceipt(context.Background(), p.s, id, eventstore.Metadata{Actor: "test"}, func(s receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(s, receipt.DepositObservation{Transfer: seen, Confirmed: true, At: at})
	})
	if err != nil {
		p.t.Fatal(err)
	}
	waitFor(p.t, p.r, res.Position)
}

func claimed(t *testing.T, d *pgstore.DepositSweeps, token uuid.UUID) []string {
	t.Helper()
	cands, err := d.Claim(context.Background(), token, time.Minute, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Checked(context.Background(), token, cands); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cands {
		ids = append(ids, c.ReceiptID)
	}
	slices.Sort(ids)
	return ids
}

// A blue/green rebuild of receipts keeps the sweeper's work list: receipts checked before it are
// not candidates again, one paid and not checked yet still is, and the table swapped in carries
// the trigger (migration 030), so a receipt changed or paid after the swap is a candidate too.
func TestBlueGreenRebuildKeepsTheSweepWorkList(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	r, _ := start(t, pool, s, projections.NewReceipts(nil))
	p := &depositPayer{t: t, s: s, r: r}
	d := pgstore.NewDepositSweeps(pool)
	checked, pending, later := p.receipt(), p.receipt(), p.receipt()
	p.pay(checked)
	if got := claimed(t, d, uuid.New()); !slices.Equal(got, []string{checked}) {
		t.Fatalf("before the rebuild: claimed %v, want %s", got, checked)
	}
	p.pay(pending)

	if err := projections.RebuildReceiptsBlueGreen(ctx, pool, s, nil); err != nil {
		t.Fatal(err)
	}
	if got := claimed(t, d, uuid.New()); !slices.Equal(got, []string{pending}) {
		t.Fatalf("after the rebuild: claimed %v, want only the receipt not checked yet, %s", got, pending)
	}
	p.pay(checked) // a later transfer: its version rises
	p.pay(later)
	want := []string{checked, later}
	slices.Sort(want)
	if got := claimed(t, d, uuid.New()); !slices.Equal(got, want) {
		t.Fatalf("changes after the swap: claimed %v, want %v", got, want)
	}
}

// A blue/green rebuild keeps when each receipt's row was written (listed_at, migration 035): a
// restarted deposit detector looks back for the rows written since its last step, and would
// otherwise take every rebuilt row for one.
func TestBlueGreenRebuildKeepsListedAt(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	r, _ := start(t, pool, s, projections.NewReceipts(nil))
	p := &depositPayer{t: t, s: s, r: r}
	paid, unpaid := p.receipt(), p.receipt()
	p.pay(paid)
	listed := func() map[string]time.Time {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT receipt_id, listed_at FROM receipts WHERE receipt_id = ANY($1)`, []string{paid, unpaid})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]time.Time{}
		var id string
		var at time.Time
		if _, err := pgx.ForEachRow(rows, []any{&id, &at}, func() error { out[id] = at; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := listed()
	if err := projections.RebuildReceiptsBlueGreen(ctx, pool, s, nil); err != nil {
		t.Fatal(err)
	}
	if after := listed(); len(after) != 2 || !after[paid].Equal(before[paid]) || !after[unpaid].Equal(before[unpaid]) {
		t.Fatalf("listed_at after the rebuild %v, want as before %v", after, before)
	}
}
