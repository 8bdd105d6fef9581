package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/internal/wait"
)

// routedElsewhere is a proxy to the node at target whose eth_chainId answers chain 1 (another
// chain) while swapped is set: ETH_RPC_URL routed to another chain's node after start.
func routedElsewhere(t *testing.T, target string, swapped *atomic.Bool) *chain.RPC {
	t.Helper()
	return nodeProxy(t, target, func(w http.ResponseWriter, _ *http.Request, body []byte, _ http.Handler) bool {
		var q struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if !swapped.Load() || json.Unmarshal(body, &q) != nil || q.Method != "eth_chainId" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": "0x1"})
		return true
	})
}

// Stop 62: the chain id was checked once, by Dial. ETH_RPC_URL routed afterwards to a node of
// another chain was read as the same chain by every worker: refunds proven and hints checked on
// it, deposits scanned. The RPC now reads the chain id again while in use (once a minute) and,
// while it is another, every read fails with ErrChainIDMismatch (the workers log it and show
// stuck in /healthz); reads resume once the node serves CHAIN_ID again.
func TestAChainIDChangedAfterStartStopsEveryRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	swapped := &atomic.Bool{}
	c := routedElsewhere(t, e.url, swapped)
	c.SetChainIDEvery(time.Millisecond)
	if _, err := c.BlockNumber(ctx); err != nil {
		t.Fatal(err)
	}
	swapped.Store(true)
	wait.Until(t, "reads refused on another chain", 10*time.Second, func() bool {
		_, err := c.BlockNumber(ctx)
		return errors.Is(err, chain.ErrChainIDMismatch)
	})
	hash := "0x" + string(bytes.Repeat([]byte("ab"), 32))
	if _, _, err := (chain.RefundReader{RPC: c}).Transaction(ctx, hash); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a refund read on another chain: %v", err)
	}
	if _, err := chain.NewTransactionCredits(c, nil).Transaction(ctx, hash); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a hint checked on another chain: %v", err)
	}
	watch := onchain.DepositWatch(func(context.Context) (func(string) bool, error) { return func(string) bool { return true }, nil })
	if _, err := (chain.DepositScanner{RPC: c}).Scan(ctx, 1, 10, watch); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a deposit scan on another chain: %v", err)
	}
	if _, err := c.HeadersByNumber(ctx, []uint64{0}); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("headers on another chain: %v", err)
	}
	swapped.Store(false)
	wait.Until(t, "reads resumed on CHAIN_ID", 10*time.Second, func() bool {
		_, err := c.BlockNumber(ctx)
		return err == nil
	})
}
