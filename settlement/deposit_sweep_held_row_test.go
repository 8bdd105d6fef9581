package settlement_test

import (
	"encoding/json"
	"maps"
	"math/big"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// TestFundsHeldUnderTheFloorAreKeptOnTheLedgersRow (stop 71): a failed receipt's funds the
// sweeper leaves at the deposit under the sweep floor were only in a warning and the pass's
// result; an operator who missed the log line had nothing to query. The check now writes them on
// the receipt's deposit_sweeps row (held_units by token, held_at), and the sweep that later moves
// them clears it.
func TestFundsHeldUnderTheFloorAreKeptOnTheLedgersRow(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	clock, id := e.expiredReceipt(d)
	deposit := e.state(id).DepositAddress()
	e.chainAt(clock.now())
	e.mined(e.payToken(e.usdc, deposit, 1), e.payETH(deposit, big.NewInt(1)))
	e.commit()
	e.step(d)
	e.synced()
	s, h := e.sweeping()
	for range 2 {
		e.commit()
		out, err := h.Handle(e.ctx)
		e.ok(err)
		if out.Sent != 0 {
			t.Fatalf("a sweep was sent for one unit and one wei: %+v", out)
		}
	}
	held, heldAt := e.heldRow(id)
	if !maps.Equal(held, map[string]string{"USDC": "1", "ETH": "1"}) || !heldAt {
		t.Fatalf("the row holds %v (held_at set: %v), want USDC 1 and ETH 1 held", held, heldAt)
	}

	e.mined(e.payToken(e.usdc, deposit, 99_999)) // lifts the funds over the floor
	e.commit()
	e.step(d)
	e.synced()
	if _, ok := e.sweptOut(s, h, e.want(id, receipt.StatusFailed, "0.10"), 8); !ok {
		t.Fatalf("lifted over the floor, not swept: the deposit holds %d", e.depositHolds(s, deposit))
	}
	if held, heldAt := e.heldRow(id); held != nil || heldAt {
		t.Fatalf("after the sweep the row holds %v (held_at set: %v), want nothing", held, heldAt)
	}
}

// heldRow is receipt id's held_units and whether its held_at is set, as the sweeper's ledger keeps them.
func (e *depositEnv) heldRow(id string) (map[string]string, bool) {
	e.t.Helper()
	var raw []byte
	var at bool
	e.ok(e.pool.QueryRow(e.ctx, `SELECT held_units, held_at IS NOT NULL FROM deposit_sweeps WHERE receipt_id = $1`, id).Scan(&raw, &at))
	if raw == nil {
		return nil, at
	}
	var out map[string]string
	e.ok(json.Unmarshal(raw, &out))
	return out, at
}
