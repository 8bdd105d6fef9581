package chain_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
)

func TestDialChecksTheChainID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	_, err := chain.Dial(ctx, e.url, 8453)
	if !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("Dial(chain 1337, want 8453) = %v; want ErrChainIDMismatch", err)
	}
	t.Logf("mismatch: %v", err)
	if id, err := e.rpc.ChainID(ctx); err != nil || id != chain.DevChainID {
		t.Fatalf("ChainID = %d, %v", id, err)
	}
}

// TestDialUnreachable: a node that does not answer is an error, never a chain mismatch.
func TestDialUnreachable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	port, err := chain.FreePort() // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chain.Dial(ctx, fmt.Sprintf("http://127.0.0.1:%d", port), chain.DevChainID); err == nil || errors.Is(err, chain.ErrChainIDMismatch) {
		t.Errorf("Dial(closed port) = %v; want an unreachable error", err)
	}
}

// TestAdapterOverTheSimulatedClient: the in-process simulated client (no HTTP, no batches) is a
// Client too; a transaction's check (TransactionCredits) holds through it.
func TestAdapterOverTheSimulatedClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	a, err := chain.Adapt(ctx, e.sim)
	e.ok(err)
	tx := e.payETH(e.buyer, e.split, eth(1000))
	e.commit()
	got, err := chain.NewTransactionCredits(a, nil).Transaction(ctx, tx.Hash().Hex())
	if err != nil || !got.Mined || got.Reverted || len(got.Credits) != 1 || got.Credits[0].AmountUnits != eth(1000).String() {
		t.Fatalf("the transaction via the adapter: %+v, %v", got, err)
	}
	if s := a.Stats(); s.Calls != 2 || s.Requests != 2 { // receipt, transaction
		t.Errorf("adapter stats %+v, want 2 calls", s)
	}
	bal, err := a.BalanceAt(ctx, e.split, nil)
	if err != nil || bal.Cmp(eth(1000)) != 0 {
		t.Errorf("split balance %v, %v; want 1 ETH", bal, err)
	}
}
