package settlement_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// Issue 40: a cursor of another chain, or one far ahead of the head, stops the detector with an
// error (never a silent wait); at start, outside the development chain, the check refuses and
// names both chains; on the development chain it starts afresh at the new genesis.
func TestDepositCursorOfAnotherChain(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	store := pgstore.NewDeposits(e.pool)
	scanner := chain.DepositScanner{RPC: e.rpc, Tokens: e.tokens}
	genesis, err := scanner.Genesis(e.ctx)
	e.ok(err)
	e.step(e.detector())
	cur, ok, err := store.Cursor(e.ctx, "deposits")
	e.ok(err)
	if !ok || cur.Genesis != genesis {
		t.Fatalf("cursor %+v, want the genesis %s", cur, genesis)
	}

	e.ok(store.SaveCursor(e.ctx, "deposits", settlement.DepositCursor{Number: cur.Number + 500, Hash: cur.Hash, Genesis: genesis}))
	if _, err := e.detector().Step(e.ctx); !errors.Is(err, settlement.ErrCursorAhead) {
		t.Fatalf("a cursor 500 blocks ahead of the head: %v", err)
	}

	other := "0x" + strings.Repeat("ab", 32)
	e.ok(store.SaveCursor(e.ctx, "deposits", settlement.DepositCursor{Number: cur.Number, Hash: cur.Hash, Genesis: other}))
	if _, err := e.detector().Step(e.ctx); !errors.Is(err, settlement.ErrOtherChain) {
		t.Fatalf("a cursor of another chain: %v", err)
	}
	err = settlement.CheckDepositChain(e.ctx, scanner, store, store, e.store, chain.DevChainID, "", false, time.Now, zerolog.Nop())
	if !errors.Is(err, settlement.ErrOtherChain) || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), genesis) {
		t.Fatalf("start on another chain, not the development one: %v", err)
	}

	r := e.receipt(100)
	e.synced()
	e.ok(settlement.CheckDepositChain(e.ctx, scanner, store, store, e.store, chain.DevChainID, "", true, time.Now, zerolog.Nop()))
	if cur, _, err := store.Cursor(e.ctx, "deposits"); err != nil || cur.Genesis != genesis || cur.Number != 0 {
		t.Fatalf("cursor after starting afresh %+v (%v)", cur, err)
	}
	if st := e.state(r.Receipt.ReceiptID); st.DepositChainGone == nil || st.DepositChainGone.PreviousGenesis != other {
		t.Fatalf("a receipt of the old chain: %+v", st.DepositChainGone)
	}
	if _, err := e.detector().Step(e.ctx); err != nil {
		t.Fatalf("a step after starting afresh: %v", err)
	}
}
