package pgstore

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/settlement"
)

// TestWithFacts: the deposits read without facts keep their order; each one asked for is as the
// read with facts found it (a newer version, its facts), or left out when that read no longer
// finds it open; the others stay as they were read.
func TestWithFacts(t *testing.T) {
	lean := []settlement.OpenDeposit{
		{ReceiptID: "known", Version: 3, Known: true},
		{ReceiptID: "changed", Version: 4},
		{ReceiptID: "bare", Version: 1},
		{ReceiptID: "closed", Version: 2},
	}
	full := []settlement.OpenDeposit{
		{ReceiptID: "changed", Version: 5, Settled: true, Paid: &settlement.PaidTransfer{TransactionHash: "0xab"}},
	}
	got := withFacts(lean, []string{"changed", "closed"}, full)
	want := []settlement.OpenDeposit{
		{ReceiptID: "known", Version: 3, Known: true},
		{ReceiptID: "changed", Version: 5, Settled: true, Paid: &settlement.PaidTransfer{TransactionHash: "0xab"}},
		{ReceiptID: "bare", Version: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("withFacts:\n got %+v\nwant %+v", got, want)
	}
}

// TestCursorWatchedAt: the cursor keeps when its step read its watch list, on the database's
// clock (the one the receipt rows' listed_at are on): saved as the database's time less
// WatchedFor; 0 saves none; negative keeps the one saved.
func TestCursorWatchedAt(t *testing.T) {
	pool := pgtest.Pool(t)
	ctx := context.Background()
	d := NewDeposits(pool)
	var dbNow time.Time
	if err := pool.QueryRow(ctx, `SELECT now()`).Scan(&dbNow); err != nil {
		t.Fatal(err)
	}
	watched := func() time.Time {
		t.Helper()
		c, ok, err := d.Cursor(ctx, "deposits")
		if err != nil || !ok {
			t.Fatalf("cursor: %v %v", ok, err)
		}
		return c.WatchedAt
	}
	if err := d.SaveCursor(ctx, "deposits", settlement.DepositCursor{Number: 1}); err != nil {
		t.Fatal(err)
	}
	if w := watched(); !w.IsZero() {
		t.Fatalf("a cursor saved with no WatchedFor has WatchedAt %v, want none", w)
	}
	if err := d.SaveCursor(ctx, "deposits", settlement.DepositCursor{Number: 2, WatchedFor: time.Hour}); err != nil {
		t.Fatal(err)
	}
	first := watched()
	if lo, hi := dbNow.Add(-time.Hour-time.Minute), dbNow.Add(-time.Hour+time.Minute); first.Before(lo) || first.After(hi) {
		t.Fatalf("WatchedAt %v, want about an hour before the database's %v", first, dbNow)
	}
	if err := d.SaveCursor(ctx, "deposits", settlement.DepositCursor{Number: 3, WatchedFor: -1}); err != nil {
		t.Fatal(err)
	}
	if w := watched(); !w.Equal(first) {
		t.Fatalf("a save with negative WatchedFor moved WatchedAt from %v to %v", first, w)
	}
	if err := d.SaveCursor(ctx, "deposits", settlement.DepositCursor{Number: 4, WatchedFor: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if w := watched(); !w.After(first) {
		t.Fatalf("WatchedAt %v after a newer step, want after %v", w, first)
	}
}
