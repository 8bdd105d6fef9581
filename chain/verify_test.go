package chain_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain"
)

// verifyCase is one row of the rules table: a payment and the verdict it must get against a
// receipt of 12.50 USDC (12,500,000 units, no tolerance) or, when quoted, of 1 ETH with 1%.
type verifyCase struct {
	name   string
	pay    func() *types.Transaction
	quoted bool // expected in ETH by quote
	status chain.Status
	code   string
	amount *big.Int // nil: no amount to check
}

func verifyCases(e *env) []verifyCase {
	usdc := func(from *ecdsa.PrivateKey, token, to common.Address, units int64) func() *types.Transaction {
		return func() *types.Transaction { return e.payToken(token, from, to, units) }
	}
	wei := func(from *ecdsa.PrivateKey, to common.Address, v *big.Int) func() *types.Transaction {
		return func() *types.Transaction { return e.payETH(from, to, v) }
	}
	units := func(n int64) *big.Int { return big.NewInt(n) }
	return []verifyCase{
		{"exact amount", usdc(e.buyer, e.usdc, e.split, 12_500_000), false, chain.Paid, "", units(12_500_000)},
		{"overpaid", usdc(e.buyer, e.usdc, e.split, 12_500_001), false, chain.Paid, "", units(12_500_001)},
		{"underpaid by one unit", usdc(e.buyer, e.usdc, e.split, 12_499_999), false, chain.Failed, chain.CodeSlippageExceeded, units(12_499_999)},
		{"reverted", e.revertedTransfer, false, chain.Failed, chain.CodeTxReverted, nil},
		{"wrong sender", usdc(e.stranger, e.usdc, e.split, 12_500_000), false, chain.Failed, chain.CodeWalletMismatch, nil},
		{"wrong recipient", usdc(e.buyer, e.usdc, e.elsewhere, 12_500_000), false, chain.Failed, chain.CodeWalletMismatch, nil},
		{"wrong token", usdc(e.buyer, e.usdt, e.split, 12_500_000), false, chain.Failed, chain.CodeWalletMismatch, nil},
		{"ETH exact quote", wei(e.buyer, e.split, eth(1000)), true, chain.Paid, "", eth(1000)},
		{"ETH 0.5% under the quote (inside 1%)", wei(e.buyer, e.split, eth(995)), true, chain.Paid, "", eth(995)},
		{"ETH exactly 1% under the quote", wei(e.buyer, e.split, eth(990)), true, chain.Paid, "", eth(990)},
		{"ETH 1% and one wei under the quote", wei(e.buyer, e.split, new(big.Int).Sub(eth(990), big.NewInt(1))), true, chain.Failed, chain.CodeSlippageExceeded, nil},
		{"ETH 1.1% under the quote", wei(e.buyer, e.split, eth(989)), true, chain.Failed, chain.CodeSlippageExceeded, eth(989)},
		{"ETH from another wallet", wei(e.stranger, e.split, eth(1000)), true, chain.Failed, chain.CodeWalletMismatch, nil},
		{"ETH to another address", wei(e.buyer, e.elsewhere, eth(1000)), true, chain.Failed, chain.CodeWalletMismatch, nil},
		{"an ERC-20 transfer submitted as ETH", usdc(e.buyer, e.usdc, e.split, 12_500_000), true, chain.Failed, chain.CodeWalletMismatch, nil},
	}
}

// TestVerifyRules is DESIGN 8's table: every transaction is mined and two blocks deep, then
// verified against what the receipt expects.
func TestVerifyRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cases := verifyCases(e)
	// Every payment is sent first and mined in one block, which then gets one more on top.
	exps := make([]chain.Expectation, len(cases))
	for i, c := range cases {
		if tx := c.pay(); c.quoted {
			exps[i] = e.expectETH(tx, eth(1000))
		} else {
			exps[i] = e.expectUSDC(tx, 12_500_000)
		}
	}
	e.commit()
	e.commit()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := chain.Verify(ctx, e.rpc, exps[i])
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != c.status || v.FailureCode != c.code {
				t.Fatalf("verdict %v %q, want %v %q", v.Status, v.FailureCode, c.status, c.code)
			}
			if c.amount != nil && (v.AmountUnits == nil || v.AmountUnits.Cmp(c.amount) != 0) {
				t.Errorf("amount %v, want %v", v.AmountUnits, c.amount)
			}
			if v.Depth != 2 || v.BlockNumber == 0 || v.BlockHash == (common.Hash{}) {
				t.Errorf("depth %d block %d %s, want depth 2 and the block", v.Depth, v.BlockNumber, v.BlockHash)
			}
			if c.status == chain.Paid && !c.quoted && v.LogIndex < 0 {
				t.Errorf("paid by token without a log index")
			}
		})
	}
}

// revertedTransfer sends a transfer above the buyer's balance that is mined and reverts. Its gas
// limit is fixed on purpose: estimation would refuse a transaction that reverts.
func (e *env) revertedTransfer() *types.Transaction {
	e.t.Helper()
	o := e.opts(e.buyer)
	o.GasLimit = 100_000
	return e.sent(e.token(e.usdc).Transfer(o, e.split, big.NewInt(1e18)))
}

func TestVerifyWaitsForTheConfirmationDepth(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tx := e.payToken(e.usdc, e.buyer, e.split, 5_000_000)
	exp := e.expectUSDC(tx, 5_000_000)

	// Submitted before it is mined: waiting, nothing known.
	v, err := chain.Verify(ctx, e.rpc, exp)
	if err != nil || v.Status != chain.Waiting || v.BlockNumber != 0 || v.Depth != 0 {
		t.Fatalf("unmined: %+v, %v; want waiting at depth 0", v, err)
	}
	e.commit()
	v, err = chain.Verify(ctx, e.rpc, exp)
	if err != nil || v.Status != chain.Waiting || v.Depth != 1 || v.BlockNumber == 0 {
		t.Fatalf("depth 1: %+v, %v; want waiting at depth 1 with its block", v, err)
	}
	e.commit()
	v, err = chain.Verify(ctx, e.rpc, exp)
	if err != nil || v.Status != chain.Paid || v.Depth != 2 {
		t.Fatalf("depth 2: %+v, %v; want paid", v, err)
	}
	// Three confirmations wanted: depth 2 still waits.
	exp.Confirmations = 3
	if v, err = chain.Verify(ctx, e.rpc, exp); err != nil || v.Status != chain.Waiting {
		t.Fatalf("depth 2 of 3: %+v, %v; want waiting", v, err)
	}
}

// TestVerifyReorgBeforeTheDepth: the paying block is replaced at depth 1 by a fork without the
// transaction: waiting again (not found), the old block is no longer canonical; once the same
// signed transaction is mined again, it pays at depth 2.
func TestVerifyReorgBeforeTheDepth(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	parent, err := e.sim.HeaderByNumber(ctx, nil)
	e.ok(err)
	tx := e.payToken(e.usdc, e.buyer, e.split, 5_000_000)
	exp := e.expectUSDC(tx, 5_000_000)
	e.commit()
	v, err := chain.Verify(ctx, e.rpc, exp)
	if err != nil || v.Status != chain.Waiting || v.Depth != 1 {
		t.Fatalf("depth 1: %+v, %v", v, err)
	}
	e.reorgDropping(parent.Hash())
	e.commit()
	e.commit()

	if ok, err := chain.IsCanonical(ctx, e.rpc, v.BlockNumber, v.BlockHash); err != nil || ok {
		t.Fatalf("IsCanonical(replaced block) = %v, %v; want false", ok, err)
	}
	if v, err = chain.Verify(ctx, e.rpc, exp); err != nil || v.Status != chain.Waiting || v.BlockNumber != 0 {
		t.Fatalf("after the reorg: %+v, %v; want waiting, not found", v, err)
	}
	e.ok(e.sim.SendTransaction(ctx, tx))
	e.commit()
	e.commit()
	v, err = chain.Verify(ctx, e.rpc, exp)
	if err != nil || v.Status != chain.Paid {
		t.Fatalf("mined again: %+v, %v; want paid", v, err)
	}
	if ok, err := chain.IsCanonical(ctx, e.rpc, v.BlockNumber, v.BlockHash); err != nil || !ok {
		t.Fatalf("IsCanonical(paying block) = %v, %v; want true", ok, err)
	}
	// A block past the head is not canonical either.
	if ok, err := chain.IsCanonical(ctx, e.rpc, v.BlockNumber+100, v.BlockHash); err != nil || ok {
		t.Fatalf("IsCanonical(future block) = %v, %v; want false", ok, err)
	}
}

// reorgDropping makes parent the head again and empties the pool, so that the transactions of
// the blocks dropped are gone rather than mined again by the next commit. The pool re-adds them
// on its own goroutine after the head changes, hence the second clearing.
func (e *env) reorgDropping(parent [32]byte) {
	e.t.Helper()
	e.ok(e.b.Fork(parent))
	e.b.Rollback()
	time.Sleep(50 * time.Millisecond)
	e.b.Rollback()
}

// TestVerifyRPCDown: a node that does not answer is an error, never a verdict.
func TestVerifyRPCDown(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tx := e.payToken(e.usdc, e.buyer, e.split, 5_000_000)
	e.commit()
	e.commit()

	port, err := chain.FreePort() // nothing listens there
	e.ok(err)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	rc, err := rpc.DialContext(ctx, url)
	e.ok(err)
	defer rc.Close()
	down := chain.NewRPC(rc, chain.DevChainID)
	v, err := chain.Verify(ctx, down, e.expectUSDC(tx, 5_000_000))
	if err == nil {
		t.Fatalf("verify against a closed port: %+v and no error", v)
	}
	if v.Status != chain.Waiting || v.FailureCode != "" {
		t.Errorf("verdict with the error: %+v; want the zero verdict", v)
	}
	if _, err := chain.Dial(ctx, url, chain.DevChainID); err == nil || errors.Is(err, chain.ErrChainIDMismatch) {
		t.Errorf("Dial(closed port) = %v; want an unreachable error", err)
	}
	// The same payment verifies once the node answers.
	if v, err = chain.Verify(ctx, e.rpc, e.expectUSDC(tx, 5_000_000)); err != nil || v.Status != chain.Paid {
		t.Errorf("verify on the live node: %+v, %v", v, err)
	}
}

func TestDialChecksTheChainID(t *testing.T) {
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

// TestAdapterOverTheSimulatedClient: the in-process simulated client (no HTTP, no batches) is a
// Client too; the same verification holds through it.
func TestAdapterOverTheSimulatedClient(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a, err := chain.Adapt(ctx, e.sim)
	e.ok(err)
	tx := e.payETH(e.buyer, e.split, eth(1000))
	e.commit()
	e.commit()
	v, err := chain.Verify(ctx, a, e.expectETH(tx, eth(1000)))
	if err != nil || v.Status != chain.Paid || v.AmountUnits.Cmp(eth(1000)) != 0 {
		t.Fatalf("verify via the adapter: %+v, %v", v, err)
	}
	if s := a.Stats(); s.Calls != 3 || s.Requests != 3 { // receipt, head, transaction
		t.Errorf("adapter stats %+v, want 3 calls", s)
	}
	bal, err := a.BalanceAt(ctx, e.split, nil)
	if err != nil || bal.Cmp(eth(1000)) != 0 {
		t.Errorf("split balance %v, %v; want 1 ETH", bal, err)
	}
}
