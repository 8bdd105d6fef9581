package settlement_test

// A sweep counts once its block is CHAIN_CONFIRMATIONS deep and still on the chain; a sweep whose
// nonce another transaction of the operator key took is dropped and its deposits swept again.

import (
	"context"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// operator is the env's operator key (the deployer of its tokens and factory) at 2 confirmations.
func (e *depositEnv) operator() *chain.Operator {
	e.t.Helper()
	op, err := chain.NewOperator(hex.EncodeToString(crypto.FromECDSA(e.op)), chain.DevChainID, e.rpc.Backend(), e.tokens)
	e.ok(err)
	return op.WithConfirmations(2)
}

// sweeping is a sweeper of the env's factory from its operator key, and its process.
func (e *depositEnv) sweeping() (*chain.Sweeper, *settlement.SweepDepositsHandler) {
	e.t.Helper()
	s, err := chain.NewSweeper(e.operator(), e.factory.Hex())
	e.ok(err)
	return s, settlement.NewSweepDepositsHandler(e.store, s, pgstore.NewDepositSweeps(e.pool), time.Now)
}

// paidDeposit is a receipt of 3.00 paid 3 USDC at its deposit, recorded paid by detector d.
func (e *depositEnv) paidDeposit(d *settlement.DepositDetector) receipt.State {
	e.t.Helper()
	st := e.receipt(300)
	e.step(d)
	e.mined(e.payToken(e.usdc, st.Receipt.DepositAddress, 3_000_000))
	e.commit()
	e.step(d)
	return e.want(st.Receipt.ReceiptID, receipt.StatusPaid, "3.00")
}

// depositHolds is what deposit holds of USDC.
func (e *depositEnv) depositHolds(s *chain.Sweeper, deposit string) int64 {
	e.t.Helper()
	b, err := s.DepositBalance(e.ctx, deposit, "USDC")
	e.ok(err)
	return b.Int64()
}

// sweptOut runs passes of h, a block before each, until receipt st is swept and its deposit
// empty, at most passes times; it returns whether it was.
func (e *depositEnv) sweptOut(s *chain.Sweeper, h *settlement.SweepDepositsHandler, st receipt.State, passes int) (settlement.Swept, bool) {
	e.t.Helper()
	var sum settlement.Swept
	for range passes {
		e.commit()
		out, err := h.Handle(e.ctx)
		e.ok(err)
		sum.Sent, sum.Settled, sum.Dropped = sum.Sent+out.Sent, sum.Settled+out.Settled, sum.Dropped+out.Dropped
		e.synced()
		if e.state(st.Receipt.ReceiptID).Swept() && e.depositHolds(s, st.Receipt.DepositAddress) == 0 {
			return sum, true
		}
	}
	return sum, false
}

// TestDepositSweepReorgedAwayIsSweptAgain: a sweep mined at depth 1 is not recorded yet; a fork
// from before its block drops it, and it is sent again and recorded once deep enough, the
// deposit emptied (it was recorded at depth 1: the receipt swept for good, its 3 USDC left at
// the deposit, nothing unswept).
func TestDepositSweepReorgedAwayIsSweptAgain(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	st := e.paidDeposit(d)
	id := st.Receipt.ReceiptID
	s, h := e.sweeping()
	parent, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 1 {
		t.Fatalf("first pass: %+v %v", out, err)
	}
	e.commit() // the sweep mined, depth 1
	if _, err := h.Handle(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.synced()
	if st := e.state(id); st.Swept() || e.count(id, receipt.EventDepositSwept) != 0 {
		t.Fatalf("recorded swept at depth 1: %+v", st.Sweeps)
	}
	e.ok(e.b.Fork(parent.Hash()))
	e.b.Rollback()
	e.poolEmpty() // the pool drops the forked-away transactions on its own goroutine
	e.b.Rollback()
	if got := e.depositHolds(s, st.Receipt.DepositAddress); got != 3_000_000 {
		t.Fatalf("the fork left %d at the deposit, want the sweep undone", got)
	}
	if _, ok := e.sweptOut(s, h, st, 6); !ok {
		st := e.state(id)
		t.Fatalf("not swept again: swept %v unswept %v deposit %d", st.Swept(), st.Unswept(), e.depositHolds(s, st.Receipt.DepositAddress))
	}
	var evs []receipt.DepositSwept
	for _, re := range e.history(id) {
		if re.Type == receipt.EventDepositSwept {
			evs = append(evs, e.decode(re).(receipt.DepositSwept))
		}
	}
	if len(evs) != 1 {
		t.Fatalf("DepositSwept %+v, want one", evs)
	}
	r, err := e.sim.TransactionReceipt(e.ctx, common.HexToHash(evs[0].TransactionHash))
	e.ok(err)
	if r.BlockNumber.Uint64() != evs[0].BlockNumber {
		t.Fatalf("swept in block %d, recorded %d", r.BlockNumber, evs[0].BlockNumber)
	}
}

// droppedBroadcasts never sends: a crash between recording a transaction and sending it.
type droppedBroadcasts struct{ *chain.Sweeper }

func (droppedBroadcasts) Broadcast(context.Context, []byte) error { return nil }

// takeNonce has another transaction of the env's operator key, sent outside the ledger (as
// serve's factory deployment is), take the key's next nonce, and mines it.
func (e *depositEnv) takeNonce() {
	e.t.Helper()
	from := crypto.PubkeyToAddress(e.op.PublicKey)
	nonce, err := e.sim.PendingNonceAt(e.ctx, from)
	e.ok(err)
	o, err := bind.NewKeyedTransactorWithChainID(e.op, big.NewInt(chain.DevChainID))
	e.ok(err)
	o.Context, o.Nonce, o.Value = e.ctx, new(big.Int).SetUint64(nonce), big.NewInt(1)
	tx, err := chain.SendETH(o, e.sim, crypto.PubkeyToAddress(depositKey(e.t).PublicKey))
	e.ok(err)
	e.mined(tx)
}

// TestDepositSweepNonceTakenIsSweptAgain: a sweep recorded and never sent, whose nonce another
// transaction of the key took, is dropped once that one is deep enough, and its deposit swept by
// a new sweep (it stayed open for good: "nonce too low" taken as sent, the deposit never claimed
// again).
func TestDepositSweepNonceTakenIsSweptAgain(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	st := e.paidDeposit(e.detector())
	s, h := e.sweeping()
	crashed := settlement.NewSweepDepositsHandler(e.store, droppedBroadcasts{s}, pgstore.NewDepositSweeps(e.pool), time.Now)
	if out, err := crashed.Handle(e.ctx); err != nil || out.Sent != 1 {
		t.Fatalf("recorded: %+v %v", out, err)
	}
	open, err := pgstore.NewDepositSweeps(e.pool).OpenSweeps(e.ctx, s.Sender())
	e.ok(err)
	if len(open) != 1 {
		t.Fatalf("open sweeps %+v", open)
	}
	e.takeNonce()
	sum, ok := e.sweptOut(s, h, st, 6)
	if !ok {
		st := e.state(st.Receipt.ReceiptID)
		t.Fatalf("not swept: %+v, swept %v deposit %d", sum, st.Swept(), e.depositHolds(s, st.Receipt.DepositAddress))
	}
	if sum.Dropped != 1 || sum.Sent != 1 {
		t.Fatalf("passes %+v, want the open sweep dropped and one sent", sum)
	}
	var status string
	e.ok(e.pool.QueryRow(e.ctx, `SELECT status FROM operator_transactions WHERE tx_hash = $1`, strings.ToLower(open[0].Tx.Hash)).Scan(&status))
	if status != settlement.TxReverted {
		t.Fatalf("the dropped sweep is %s", status)
	}
}
