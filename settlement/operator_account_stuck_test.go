package settlement_test

import (
	"context"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// underpricedOnce is the sweeper's chain whose first sweep is signed with a fee cap under the
// newest block's base fee (signed again with the operator's key): a sweep sent just before a
// gas-price spike, which the node keeps and never mines. The sweeps after it are the sweeper's.
type underpricedOnce struct {
	*chain.Sweeper
	e    *depositEnv
	done atomic.Bool
}

func (u *underpricedOnce) SignSweep(ctx context.Context, nonce uint64, deposits []settlement.SweepDeposit) (settlement.SignedTx, error) {
	s, err := u.Sweeper.SignSweep(ctx, nonce, deposits)
	if err != nil || u.done.Swap(true) {
		return s, err
	}
	return u.e.underpriced(s), nil
}

// underpriced is s signed again at half the newest block's base fee, with a tip of 1 wei.
func (e *depositEnv) underpriced(s settlement.SignedTx) settlement.SignedTx {
	e.t.Helper()
	tx := new(types.Transaction)
	e.ok(tx.UnmarshalBinary(s.Raw))
	head, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	low, err := types.SignNewTx(e.op, types.LatestSignerForChainID(big.NewInt(chain.DevChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chain.DevChainID), Nonce: tx.Nonce(), GasTipCap: big.NewInt(1), GasFeeCap: new(big.Int).Rsh(head.BaseFee, 1),
		Gas: tx.Gas(), To: tx.To(), Value: tx.Value(), Data: tx.Data()})
	e.ok(err)
	raw, err := low.MarshalBinary()
	e.ok(err)
	return settlement.SignedTx{Hash: low.Hash().Hex(), Raw: raw, Nonce: low.Nonce(), Gas: low.Gas(), Contract: s.Contract}
}

// TestOperatorTransactionStuckUnderTheBaseFeeIsReplaced (stop 68): a sweep the node accepted
// with a fee cap under the base fee (sent just before a gas-price spike) was broadcast again, the
// same bytes, every pass, and never mined; every later operator transaction (releases, charges,
// deployments, sweeps) waited behind its nonce until the base fee came down, or for good. Held
// unmined for RefusedWait under the base fee, it is now replaced at its nonce by a transfer of
// nothing at higher fees (recorded nowhere: it moves nothing); once that is deep the sweep is
// dropped, the deployment behind it mined, and the deposit swept again by a new sweep.
func TestOperatorTransactionStuckUnderTheBaseFeeIsReplaced(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	st := e.paidDeposit(e.detector())
	s, _ := e.sweeping()
	h := settlement.NewSweepDepositsHandler(e.store, &underpricedOnce{Sweeper: s, e: e}, pgstore.NewDepositSweeps(e.pool), time.Now)
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 1 {
		t.Fatalf("the sweep pass: %+v %v, want the underpriced sweep sent", out, err)
	}
	clock := time.Now()
	sender := settlement.NewOperatorSender(e.operator(), pgstore.NewOperatorTransactions(e.pool)).WithClock(func() time.Time { return clock })
	payee := newWallet(t)
	deploy, err := sender.Send(e.ctx, settlement.OperatorTx{Kind: settlement.TxDeploy}, nil, func(nonce uint64) (settlement.SignedTx, error) {
		return e.operator().SignDeploy(e.ctx, nonce, []string{payee}, []int{10_000})
	})
	e.ok(err)
	e.b.Commit()
	if _, err := e.sim.TransactionReceipt(e.ctx, common.HexToHash(deploy.Hash)); err == nil {
		t.Fatal("the deployment was mined past the stuck sweep's nonce")
	}
	if n, err := sender.Settle(e.ctx); err != nil || n != 0 {
		t.Fatalf("settle before RefusedWait: %d %v", n, err)
	}
	clock = clock.Add(settlement.DefaultRefusedWait)
	if _, err := sender.Settle(e.ctx); err != nil {
		t.Fatalf("settle after RefusedWait: %v", err)
	}
	for range 2 {
		e.commit()
	}
	if n, err := sender.Settle(e.ctx); err != nil || n != 2 {
		t.Fatalf("settled %d (%v), want the stuck sweep dropped and the deployment mined", n, err)
	}
	if _, ok := e.sweptOut(s, h, st, 6); !ok {
		t.Fatalf("the deposit was not swept again after the stuck sweep was replaced: %+v", e.state(st.Receipt.ReceiptID).Sweeps)
	}
}
