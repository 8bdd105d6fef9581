package pgstore

import (
	"context"
	"maps"
	"testing"

	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/settlement"
)

// TestHeldDeposits: the receipts a detector keeps transfers of are saved per detector and chain,
// moved, and forgotten, apart from its cursor and its held cursor.
func TestHeldDeposits(t *testing.T) {
	pool := pgtest.Pool(t)
	ctx := context.Background()
	d := NewDeposits(pool)
	held := func(name, genesis string, want map[string]uint64) {
		t.Helper()
		got, err := d.Held(ctx, name, genesis)
		if err != nil || !maps.Equal(got, want) {
			t.Fatalf("held of %s on %s: %v %v, want %v", name, genesis, got, err, want)
		}
	}
	for _, c := range []string{"deposits", "deposits.held"} {
		if err := d.SaveCursor(ctx, c, settlement.DepositCursor{Number: 7, Genesis: "0xg"}); err != nil {
			t.Fatal(err)
		}
	}
	held("deposits", "0xg", map[string]uint64{})
	if err := d.SaveHeld(ctx, "deposits", "0xg", map[string]uint64{"r-1": 5, "r-2": 9}, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveHeld(ctx, "other", "0xg", map[string]uint64{"r-3": 1}, nil); err != nil {
		t.Fatal(err)
	}
	held("deposits", "0xg", map[string]uint64{"r-1": 5, "r-2": 9})
	held("deposits", "0xother", map[string]uint64{})
	if err := d.SaveHeld(ctx, "deposits", "0xg", map[string]uint64{"r-2": 4}, []string{"r-1"}); err != nil {
		t.Fatal(err)
	}
	held("deposits", "0xg", map[string]uint64{"r-2": 4})
	if err := d.SaveHeld(ctx, "deposits", "0xg", nil, []string{"r-2"}); err != nil {
		t.Fatal(err)
	}
	held("deposits", "0xg", map[string]uint64{})
	held("other", "0xg", map[string]uint64{"r-3": 1})
	if c, ok, err := d.Cursor(ctx, "deposits.held"); err != nil || !ok || c.Number != 7 {
		t.Fatalf("the held cursor: %+v %v %v", c, ok, err)
	}
}
