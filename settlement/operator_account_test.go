package settlement_test

// The operator's transactions whose nonce another transaction of the key took (Replaced).

import (
	"context"
	"errors"
	"math/big"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// unsentSplitChain never sends: a crash between recording a transaction and sending it.
type unsentSplitChain struct{ settlement.SplitChain }

func (unsentSplitChain) Broadcast(context.Context, []byte) error { return nil }

// TestOperatorReleaseNonceTakenIsDropped: a release recorded and never sent, whose nonce another
// transaction of the key took, is settled once that one is deep enough: its covers are deleted
// and its payee may be released to again (it stayed signed for good, the payee refused with
// ErrReleasePending). A transaction still in reach is not dropped.
func TestOperatorReleaseNonceTakenIsDropped(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	op := e.operator()
	ledger := pgstore.NewOperatorTransactions(e.pool)
	payee, split := newWallet(t), newWallet(t)
	release := settlement.OperatorTx{Kind: settlement.TxRelease, Split: split, Token: "USDC", Payee: payee}
	sign := func(nonce uint64) (settlement.SignedTx, error) {
		return op.SignDeploy(e.ctx, nonce, []string{payee}, []int{10_000}) // any transaction at the nonce
	}
	tx, err := settlement.NewOperatorSender(unsentSplitChain{op}, ledger).Send(e.ctx, release, []string{"r-1"}, sign)
	e.ok(err)
	sender := settlement.NewOperatorSender(op, ledger)
	if gone, err := op.Replaced(e.ctx, tx.Hash, tx.Nonce); err != nil || gone {
		t.Fatalf("replaced before any other transaction: %v %v", gone, err)
	}
	e.takeNonce()
	if n, err := sender.Settle(e.ctx); err != nil || n != 0 {
		t.Fatalf("settled %d (%v) at depth 1 of the other transaction", n, err)
	}
	e.commit()
	if n, err := sender.Settle(e.ctx); err != nil || n != 1 {
		t.Fatalf("settled %d (%v), want the release dropped", n, err)
	}
	if open, err := ledger.Unsettled(e.ctx, op.Sender()); err != nil || len(open) != 0 {
		t.Fatalf("unsettled %+v %v", open, err)
	}
	cov, err := ledger.Coverage(e.ctx, []string{"r-1"})
	e.ok(err)
	if len(cov["r-1"]) != 0 {
		t.Fatalf("the dropped release still covers r-1: %+v", cov)
	}
	if _, err := sender.Send(e.ctx, release, []string{"r-1"}, sign); errors.Is(err, settlement.ErrReleasePending) || err != nil {
		t.Fatalf("a new release of the payee: %v", err)
	}
}

// Stop 63: a release was settled mined on its first receipt, at depth 1, where a sweep waits for
// CHAIN_CONFIRMATIONS. A reorg that then left it out (its nonce taken by another transaction of
// the key in the new branch, or the release reverting there) left the ledger saying mined and its
// receipts covered: the distributor records their payouts on a transaction the chain does not
// hold. A release now settles at the depth, in a block still on the chain; one a reorg dropped is
// dropped, and its receipts are free for a new release.
func TestOperatorReleaseSettlesAtDepth(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	op := e.operator()
	ledger := pgstore.NewOperatorTransactions(e.pool)
	sender := settlement.NewOperatorSender(op, ledger)
	payee, split := newWallet(t), newWallet(t)
	fork, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	release := settlement.OperatorTx{Kind: settlement.TxRelease, Split: split, Token: "USDC", Payee: payee}
	tx, err := sender.Send(e.ctx, release, []string{"r-1"}, func(nonce uint64) (settlement.SignedTx, error) {
		return op.SignDeploy(e.ctx, nonce, []string{payee}, []int{10_000}) // any transaction at the nonce
	})
	e.ok(err)
	e.commit()
	if n, err := sender.Settle(e.ctx); err != nil || n != 0 {
		t.Fatalf("settled %d (%v) at depth 1", n, err)
	}
	// A reorg leaves the release out; another transaction of the key takes its nonce.
	e.ok(e.b.Fork(fork.Hash()))
	from := crypto.PubkeyToAddress(e.op.PublicKey)
	o, err := bind.NewKeyedTransactorWithChainID(e.op, big.NewInt(chain.DevChainID))
	e.ok(err)
	o.Context, o.Nonce, o.Value = e.ctx, new(big.Int).SetUint64(tx.Nonce), big.NewInt(1)
	// Fees above the release's: it replaces the release in the pool.
	o.GasTipCap, o.GasFeeCap = big.NewInt(1e11), big.NewInt(1e12)
	// The pool takes the fork on its own goroutine: until then it sees the nonce as used.
	for deadline := time.Now().Add(10 * time.Second); ; runtime.Gosched() {
		_, err := chain.SendETH(o, e.sim, from)
		if err == nil || !strings.Contains(err.Error(), "nonce too low") || time.Now().After(deadline) {
			e.ok(err)
			break
		}
	}
	for range 3 {
		e.commit()
	}
	if r, err := e.sim.TransactionReceipt(e.ctx, common.HexToHash(tx.Hash)); err == nil {
		t.Fatalf("the release is on the chain after the reorg, block %v", r.BlockNumber)
	}
	if _, err := sender.Settle(e.ctx); err != nil {
		t.Fatal(err)
	}
	cov, err := ledger.Coverage(e.ctx, []string{"r-1"})
	e.ok(err)
	if c, ok := cov["r-1"][payee]; ok && c.Status == settlement.TxMined {
		t.Fatalf("r-1 covered by a release the chain does not hold: %+v", c)
	}
	if open, err := ledger.Unsettled(e.ctx, op.Sender()); err != nil || len(open) != 0 {
		t.Fatalf("unsettled %+v %v", open, err)
	}
}

// feeOverCap signs a transfer of nothing from the operator to itself at nonce whose fee (21,000
// gas at 100,000 gwei: 2.1 ETH) is over the node's RPCTxFeeCap (geth's default, 1 ETH): every
// node refuses it when it is sent, for good.
func (e *depositEnv) feeOverCap(nonce uint64) settlement.SignedTx {
	e.t.Helper()
	o, err := bind.NewKeyedTransactorWithChainID(e.op, big.NewInt(chain.DevChainID))
	e.ok(err)
	o.Context, o.Nonce, o.NoSend, o.GasLimit = e.ctx, new(big.Int).SetUint64(nonce), true, 21_000
	o.GasTipCap, o.GasFeeCap, o.Value = big.NewInt(1e9), big.NewInt(1e14), new(big.Int)
	tx, err := chain.SendETH(o, e.sim, o.From)
	e.ok(err)
	raw, err := tx.MarshalBinary()
	e.ok(err)
	return settlement.SignedTx{Hash: strings.ToLower(tx.Hash().Hex()), Raw: raw, Nonce: nonce, Gas: tx.Gas()}
}

// Stop 64: an operator transaction the node refused for good when broadcast (geth's 1 ETH
// RPCTxFeeCap on a large sweep while the base fee is high) stayed signed and was sent again every
// pass; its nonce was never mined, so every later operator transaction (sweeps, releases, charges,
// deployments) waited behind it until someone acted. Refused for RefusedWait with the operator's
// next nonce its own, it is replaced at that nonce by a transfer of nothing; once that is deep
// the refused one is dropped (its receipts free for a new release) and the later ones are mined.
func TestOperatorTransactionRefusedForGoodIsReplaced(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	op := e.operator()
	ledger := pgstore.NewOperatorTransactions(e.pool)
	clock := e.at
	sender := settlement.NewOperatorSender(op, ledger).WithClock(func() time.Time { return clock })
	payee, split := newWallet(t), newWallet(t)
	release := settlement.OperatorTx{Kind: settlement.TxRelease, Split: split, Token: "USDC", Payee: payee}
	refused, err := sender.Send(e.ctx, release, []string{"r-1"}, func(nonce uint64) (settlement.SignedTx, error) {
		return e.feeOverCap(nonce), nil
	})
	var r interface{ Refused() bool }
	if !errors.As(err, &r) {
		t.Fatalf("sending a fee over the cap: %v, want the node's refusal", err)
	}
	deploy, err := sender.Send(e.ctx, settlement.OperatorTx{Kind: settlement.TxDeploy}, nil, func(nonce uint64) (settlement.SignedTx, error) {
		return op.SignDeploy(e.ctx, nonce, []string{payee}, []int{10_000})
	})
	e.ok(err)
	e.b.Commit()
	if _, err := e.sim.TransactionReceipt(e.ctx, common.HexToHash(deploy.Hash)); err == nil {
		t.Fatal("the deployment was mined past the refused transaction's nonce")
	}
	if _, err := sender.Settle(e.ctx); err == nil {
		t.Fatal("a refused rebroadcast settled without an error before RefusedWait")
	}
	clock = clock.Add(settlement.DefaultRefusedWait)
	if _, err := sender.Settle(e.ctx); err != nil {
		t.Fatalf("settle after RefusedWait: %v", err)
	}
	for range 2 {
		e.commit()
	}
	n, err := sender.Settle(e.ctx)
	e.ok(err)
	if n != 2 {
		t.Fatalf("settled %d, want the refused release dropped and the deployment mined", n)
	}
	rc, err := e.sim.TransactionReceipt(e.ctx, common.HexToHash(deploy.Hash))
	e.ok(err)
	if rc.Status != 1 {
		t.Fatalf("the deployment reverted")
	}
	if open, err := ledger.Unsettled(e.ctx, op.Sender()); err != nil || len(open) != 0 {
		t.Fatalf("unsettled %+v %v", open, err)
	}
	cov, err := ledger.Coverage(e.ctx, []string{"r-1"})
	e.ok(err)
	if len(cov["r-1"]) != 0 {
		t.Fatalf("the refused release %s still covers r-1: %+v", refused.Hash, cov)
	}
}
