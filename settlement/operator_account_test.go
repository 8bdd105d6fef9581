package settlement_test

// The operator's transactions whose nonce another transaction of the key took (Replaced).

import (
	"context"
	"errors"
	"testing"

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
