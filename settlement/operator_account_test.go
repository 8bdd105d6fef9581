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
