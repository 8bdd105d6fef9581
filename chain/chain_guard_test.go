package chain_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/subscription"
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

// Stop 63: the chain id guard covered the Client's reads only; the operator's calls went through
// RPC.Backend, a bare ethclient, so a node routed to another chain after start had the operator
// read contracts and nonces there and sign on them (a pending nonce of another chain recorded in
// the ledger leaves a gap that holds every later operator transaction). Every Backend call now
// passes the guard; the nonce and the send read the chain id afresh, whatever ChainIDEvery says.
func TestAChainIDChangedAfterStartStopsTheOperator(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	swapped := &atomic.Bool{}
	c := routedElsewhere(t, e.url, swapped)
	op, err := chain.NewOperator(hex.EncodeToString(crypto.FromECDSA(e.operator)), chain.DevChainID, c.Backend(), nil)
	e.ok(err)
	if _, err := op.PendingNonce(ctx); err != nil {
		t.Fatal(err)
	}
	swapped.Store(true)
	// No wait for ChainIDEvery (a minute): what signs reads the chain id again itself.
	if _, err := op.PendingNonce(ctx); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("the operator's nonce read on another chain: %v", err)
	}
	tx, err := op.SignDeploy(ctx, 0, []string{e.elsewhere.Hex()}, []int{10_000})
	if !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a deployment signed on another chain: %+v, %v", tx, err)
	}
	if _, err := op.SignRelease(ctx, 0, e.split.Hex(), "", e.elsewhere.Hex()); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a release signed on another chain: %v", err)
	}
	if _, err := op.Releasable(ctx, e.split.Hex(), "", e.elsewhere.Hex()); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a split read on another chain: %v", err)
	}
	if _, err := op.HasCode(ctx, e.split.Hex()); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("code read on another chain: %v", err)
	}
	hash := "0x" + string(bytes.Repeat([]byte("ab"), 32))
	if _, err := op.Outcome(ctx, hash, ""); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("an outcome read on another chain: %v", err)
	}
	if _, err := op.Replaced(ctx, hash, 0); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a nonce taken judged on another chain: %v", err)
	}
	signed := types.MustSignNewTx(e.operator, types.LatestSignerForChainID(e.chainID),
		&types.DynamicFeeTx{ChainID: e.chainID, Nonce: 99, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e10), Gas: 21_000, To: &e.elsewhere})
	raw, err := signed.MarshalBinary()
	e.ok(err)
	if err := op.Broadcast(ctx, raw); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a transaction sent to another chain: %v", err)
	}
	swapped.Store(false)
	if _, err := op.PendingNonce(ctx); err != nil {
		t.Fatalf("the nonce read once the node serves CHAIN_ID again: %v", err)
	}
}

// Stop 63: the guard's verdict is up to ChainIDEvery old. In that minute after a swap, answers of
// the other chain that the ledger records for good (nothing releasable: the receipts are covered
// as released; the operator's transaction in no block and its nonce taken: dropped, its work
// freed; a sweep that reverts: its deposits are left) are not taken: the chain id is read again
// before they are given.
func TestAChainIDChangedWithinTheMinuteDecidesNothingForGood(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	swapped := &atomic.Bool{}
	c := routedElsewhere(t, e.url, swapped)
	op, err := chain.NewOperator("", chain.DevChainID, c.Backend(), nil)
	e.ok(err)
	op = op.WithConfirmations(1)
	payee := e.elsewhere.Hex()
	if due, err := op.Releasable(ctx, e.split.Hex(), "", payee); err != nil || due.Sign() != 0 {
		t.Fatalf("releasable on CHAIN_ID: %v %v; want 0", due, err)
	}
	swapped.Store(true) // the last check was just now: its verdict stands for a minute
	if due, err := op.Releasable(ctx, e.split.Hex(), "", payee); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("nothing releasable read on another chain: %v, %v", due, err)
	}
	swapped.Store(false)
	// The deployer of the env's contracts (e.operator) has mined nonces: a made-up transaction at
	// nonce 0 of its key is one whose nonce was taken.
	deployer, err := chain.NewOperator(hex.EncodeToString(crypto.FromECDSA(e.operator)), chain.DevChainID, c.Backend(), nil)
	e.ok(err)
	deployer = deployer.WithConfirmations(1)
	if _, err := deployer.PendingNonce(ctx); err != nil { // reads the chain id again: CHAIN_ID
		t.Fatal(err)
	}
	made := "0x" + string(bytes.Repeat([]byte("cd"), 32))
	if gone, err := deployer.Replaced(ctx, made, 0); err != nil || !gone {
		t.Fatalf("replaced on CHAIN_ID: %v %v; want true", gone, err)
	}
	swapped.Store(true)
	if gone, err := deployer.Replaced(ctx, made, 0); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a transaction judged dropped on another chain: %v, %v", gone, err)
	}
	// A sweep that reverts leaves its deposits until their receipts change. The split stands in
	// for a factory: it has no sweep, so the estimate reverts.
	swapped.Store(false)
	if _, err := deployer.PendingNonce(ctx); err != nil {
		t.Fatal(err)
	}
	sweeper, err := chain.NewSweeper(deployer, e.split.Hex())
	e.ok(err)
	deposits := []onchain.SweepDeposit{{ReceiptID: "r-1", Split: e.split.Hex()}}
	if _, err := sweeper.SignSweep(ctx, 0, deposits); !errors.Is(err, onchain.ErrSweepReverts) {
		t.Fatalf("a sweep on CHAIN_ID: %v; want it to revert", err)
	}
	swapped.Store(true)
	if _, err := sweeper.SignSweep(ctx, 0, deposits); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a sweep judged reverting on another chain: %v", err)
	}
}

// Stop 63: a charge's spend check refused (here: the customer holds no USDC) is recorded as the
// charge's failure; within the guard's minute after a swap it would be another chain's refusal.
// A refusal is given only once the chain id is read again.
func TestAChainIDChangedWithinTheMinuteRefusesNoCharge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	swapped := &atomic.Bool{}
	c := routedElsewhere(t, e.url, swapped)
	tokens := []chain.Token{{Symbol: "USDC", Address: e.usdc, Decimals: 6}}
	op, err := chain.NewChargeOperator(hex.EncodeToString(crypto.FromECDSA(e.operator)), chain.DevChainID, c, tokens, e.elsewhere.Hex())
	e.ok(err)
	check := []onchain.SpendCheck{{Amount: big.NewInt(1), Permission: subscription.Permission{Account: addr(key(t)).Hex(),
		Spender: addr(e.operator).Hex(), Token: e.usdc.Hex(), Allowance: "10", Period: 86400, Start: 1, End: 1 << 40, Salt: "1", ExtraData: "0x"}}}
	got, err := op.CheckSpends(ctx, check)
	if err != nil || got[0].Refusal == "" {
		t.Fatalf("a check of an account without USDC on CHAIN_ID: %+v %v; want refused", got, err)
	}
	swapped.Store(true)
	if got, err := op.CheckSpends(ctx, check); !errors.Is(err, chain.ErrChainIDMismatch) {
		t.Fatalf("a charge refused on another chain: %+v %v", got, err)
	}
}
