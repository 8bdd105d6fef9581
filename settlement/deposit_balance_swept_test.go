package settlement_test

// A deposit's ETH balance read after a sweep of it (stop 71).

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestETHSentByAContractAfterASweepIsCreditedByTheBalance: a 10.00 receipt quoted 0.01 ETH is
// paid 0.006 ETH by transaction and failed by its window; the sweeper sweeps the 0.006 to the
// split. Within the monitor window a smart wallet (a contract: an internal call, no transaction
// shows it) sends the 0.004 ETH still due. The balance read compared the deposit's 0.004 with the
// 0.006 credited, though those had been swept: nothing was credited, the receipt stayed failed
// and the 0.004 waited at the deposit, unswept. Now what the credits still hold at the deposit is
// what they brought less what was recorded swept by then: the 0.004 is credited, the receipt is
// paid late and the 0.004 swept too.
func TestETHSentByAContractAfterASweepIsCreditedByTheBalance(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	clock := &testClock{at: time.Now()}
	d.Now = clock.now
	window := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool),
		settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour}, clock.now)
	id := e.windowedReceipt(1000, clock.now(), clock.now().Add(time.Hour))
	e.quote(id, "0.01000000")
	deposit := e.state(id).DepositAddress()
	e.step(d)
	e.mined(e.payETH(deposit, big.NewInt(6e15)))
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPending, "0.006")

	clock.advance(time.Hour)
	e.synced()
	if got, err := window.Handle(e.ctx); err != nil || len(got) != 1 {
		t.Fatalf("expired %v (%v)", got, err)
	}
	e.synced()
	st := e.want(id, receipt.StatusFailed, "0.006")
	_, h := e.sweeping()
	for range 8 {
		e.commit()
		_, err := h.Handle(e.ctx)
		e.ok(err)
		e.synced()
		if len(e.state(id).Sweeps) > 0 {
			break
		}
	}
	if got := e.ethAt(deposit); len(e.state(id).Sweeps) != 1 || got.Sign() != 0 {
		t.Fatalf("the failed receipt's 0.006 ETH: sweeps %+v, the deposit holds %s", e.state(id).Sweeps, got)
	}

	e.chainAt(clock.now())
	op := crypto.PubkeyToAddress(e.op.PublicKey)
	n, err := e.sim.PendingNonceAt(e.ctx, op) // the sweeper sent from the operator's key too
	e.ok(err)
	e.nonces[op] = n
	e.fromContract(deposit, big.NewInt(4e15))
	if got := e.ethAt(deposit); got.Cmp(big.NewInt(4e15)) != 0 {
		t.Fatalf("the contract's 0.004 ETH: the deposit holds %s", got)
	}
	for range 3 {
		e.commit()
		e.step(d)
	}
	if st = e.state(id); st.Status != receipt.StatusPaid || !st.PaidLate() || st.AmountReceived() != "0.01" {
		t.Fatalf("0.004 ETH sent by a contract after the sweep: %s received %s (credits %+v)", st.Status, st.AmountReceived(), st.Credits)
	}
	if _, ok := e.sweptOutETH(h, id, 8); !ok {
		t.Fatalf("the 0.004 ETH not swept: sweeps %+v, the deposit holds %s", e.state(id).Sweeps, e.ethAt(deposit))
	}
}

// ethAt is the ETH balance of address.
func (e *depositEnv) ethAt(address string) *big.Int {
	e.t.Helper()
	b, err := e.sim.BalanceAt(e.ctx, common.HexToAddress(address), nil)
	e.ok(err)
	return b
}

// sweptOutETH runs passes of h, a block before each, until receipt id is swept and its deposit
// holds no ETH, at most passes times.
func (e *depositEnv) sweptOutETH(h *settlement.SweepDepositsHandler, id string, passes int) (int, bool) {
	e.t.Helper()
	for i := range passes {
		e.commit()
		_, err := h.Handle(e.ctx)
		e.ok(err)
		e.synced()
		if st := e.state(id); st.Swept() && e.ethAt(st.DepositAddress()).Sign() == 0 {
			return i + 1, true
		}
	}
	return passes, false
}
