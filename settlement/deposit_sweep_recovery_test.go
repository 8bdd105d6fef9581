package settlement_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/google/uuid"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// unsent is the sweeper's chain of a process that crashes after recording a sweep and before
// sending it: its broadcasts never reach the node.
type unsent struct{ settlement.SweepChain }

func (unsent) Broadcast(context.Context, []byte) error { return errors.New("crashed before sending") }

// paidDeposits makes n receipts paid at their deposits in USDC and returns their ids.
func (e *sweepEnv) paidDeposits(merchant, split string, n int) []string {
	e.t.Helper()
	var ids []string
	for i := range n {
		id, dep := e.depositReceipt(merchant, split, money.Cents(100+i))
		e.payDeposit(id, dep, "USDC", int64(100+i)*10_000)
		ids = append(ids, id)
	}
	return ids
}

// sweptOnce fails unless every receipt of ids is named by exactly one sweep transaction the
// operator signed (its calldata decoded) and has one DepositSwept of what it was paid.
func (e *sweepEnv) sweptOnce(ids []string) {
	e.t.Helper()
	a, err := contracts.DepositFactoryMetaData.GetAbi()
	if err != nil {
		e.t.Fatal(err)
	}
	rows, err := e.pool.Query(e.ctx, `SELECT raw_tx FROM operator_transactions WHERE kind = 'sweep'`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	named := map[common.Hash]int{}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			e.t.Fatal(err)
		}
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(raw); err != nil {
			e.t.Fatal(err)
		}
		args, err := a.Methods["sweep"].Inputs.Unpack(tx.Data()[4:])
		if err != nil {
			e.t.Fatal(err)
		}
		for _, k := range args[0].([]struct {
			ReceiptId [32]byte       `json:"receiptId"`
			Split     common.Address `json:"split"`
		}) {
			named[k.ReceiptId]++
		}
	}
	for _, id := range ids {
		if n := named[chain.DepositReceiptKey(id)]; n != 1 {
			e.t.Errorf("receipt %s named by %d sweep transactions, want 1", id, n)
		}
		sw := e.sweptEvents(id)
		paid := e.state(id).Credits[0].AmountUnits
		if len(sw) != 1 || sw[0].AmountUnits != paid {
			e.t.Errorf("receipt %s: DepositSwept %+v, want one of %s", id, sw, paid)
		}
	}
}

// A crash between sending a sweep and recording it (the process gone after the send), and one
// between recording and sending (never sent): the next process finishes both from the ledger
// and the chain, with no second sweep transaction.
func TestSweepDepositsCrashRecovered(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()

	// Sent, then the process is gone before anything is recorded on the receipts.
	sentIDs := e.paidDeposits(merchant, st.Address, 3)
	if out, err := e.sweeperOf(e.sweeper).Handle(e.ctx); err != nil || out.Sent != 1 || len(out.Recorded) != 0 {
		t.Fatalf("the first process's pass: %+v %v", out, err)
	}
	for _, id := range sentIDs {
		if len(e.sweptEvents(id)) != 0 {
			t.Fatalf("receipt %s recorded swept in the pass that sent its sweep", id)
		}
	}
	// Recorded, then the process is gone before sending. Its pass first finds the first
	// process's sweep open and records it from the chain once it is mined.
	e.sweepsMined()
	unsentIDs := e.paidDeposits(merchant, st.Address, 2)
	if out, err := e.sweeperOf(unsent{e.sweeper}).Handle(e.ctx); err != nil || out.Sent != 1 || len(out.Recorded) != len(sentIDs) {
		t.Fatalf("the second process's pass: %+v %v", out, err)
	}
	for _, id := range unsentIDs {
		if len(e.sweptEvents(id)) != 0 {
			t.Fatalf("receipt %s swept before the restart", id)
		}
	}

	after := e.sweeperOf(e.sweeper)
	e.sweepAll(after, append(sentIDs, unsentIDs...)...)
	if n := e.sweepTxs(); n != 2 {
		t.Fatalf("%d sweep transactions, want the 2 sent before the crashes", n)
	}
	e.sweptOnce(append(sentIDs, unsentIDs...))
}

// Two instances sweeping the same receipts at once sweep each deposit once.
func TestSweepDepositsTwoInstances(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	ids := e.paidDeposits(merchant, st.Address, 8)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := e.sweeperOf(e.newSweeper(e.op)).WithBatch(3 + i)
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if _, err := h.Handle(e.ctx); err != nil {
					t.Logf("instance %d: %v", i, err)
				}
				done := true
				for _, id := range ids {
					done = done && len(e.sweptEvents(id)) > 0
				}
				if done {
					return
				}
			}
		}()
	}
	wg.Wait()
	e.sweptOnce(ids)
}

// One bad deposit does not hold up the others: a configured token whose transfer reverts is
// caught by the factory (SweepFailed; the funds stay, bound to the split) while the rest of the
// batch is swept; a deposit that makes the whole sweep revert (a zero split) is swept around by
// halving the batch, and then left until its receipt changes.
func TestSweepDepositsHostileDepositDoesNotBlock(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	hostileAddr, tx, hostile, err := contracts.DeployHostileToken(e.devOpts(2), e.rpc.Backend())
	e.waitMined(tx, err)
	op, err := chain.NewOperator(e.dev.Operator.KeyHex(), chain.DevChainID, e.rpc.Backend(),
		append(append([]chain.Token(nil), e.dev.Tokens...), chain.Token{Symbol: "HOST", Address: hostileAddr, Decimals: 6}))
	if err != nil {
		t.Fatal(err)
	}
	ids := e.paidDeposits(merchant, st.Address, 3)
	bad := chain.DepositAddress(e.factory, ids[1], common.HexToAddress(st.Address))
	e.waitMined(hostile.Mint(e.devOpts(2), bad, big.NewInt(7_000_000)))
	e.waitMined(hostile.SetMode(e.devOpts(2), 1)) // Revert
	zero := "0x" + strings.Repeat("0", 40)
	zid, zdep := e.depositReceipt(merchant, zero, 500)
	e.payDeposit(zid, zdep, "USDC", 5_000_000)
	e.listedPaid(zid) // in the read model with the others: one claim, one batch of four

	h := e.sweeperOf(e.newSweeper(op))
	out := e.sweepAll(h, ids...)
	if out.Sent != 2 || out.Deposits != 3 {
		t.Fatalf("%d sweeps of %d deposits, want [a b] and [c] after halving [a b c z]: %+v", out.Sent, out.Deposits, out)
	}
	e.sweptOnce(ids)
	if b, err := hostile.BalanceOf(&bind.CallOpts{Context: e.ctx}, bad); err != nil || b.Int64() != 7_000_000 {
		t.Fatalf("the hostile token left the deposit: %v %v", b, err)
	}
	if e.state(zid).Swept() || len(e.sweptEvents(zid)) != 0 {
		t.Fatal("the zero-split deposit was swept")
	}
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("the reverting deposit is tried again before its receipt changes: %+v %v", out, err)
	}
}

func (e *sweepEnv) waitMined(tx *types.Transaction, err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		e.t.Fatal(err)
	}
}

// sweepsMined waits for every sweep transaction recorded so far to be mined.
func (e *sweepEnv) sweepsMined() {
	e.t.Helper()
	rows, err := e.pool.Query(e.ctx, `SELECT raw_tx FROM operator_transactions WHERE kind = 'sweep'`)
	if err != nil {
		e.t.Fatal(err)
	}
	var txs []*types.Transaction
	for rows.Next() {
		var raw []byte
		tx := new(types.Transaction)
		if err := rows.Scan(&raw); err != nil || tx.UnmarshalBinary(raw) != nil {
			e.t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	rows.Close()
	for _, tx := range txs {
		e.waitMined(tx, nil)
	}
}

// Sweeping is permissionless: a deposit someone else swept first is recorded swept by that
// transaction (its Swept event on chain), and is not swept again and again for nothing.
func TestSweepDepositsSweptBySomeoneElse(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	ids := e.paidDeposits(merchant, st.Address, 2)
	f, err := contracts.NewDepositFactory(e.factory, e.rpc.Backend())
	if err != nil {
		t.Fatal(err)
	}
	usdc, _ := e.dev.Token("USDC")
	e.mu.Lock()
	tx, err := f.Sweep(e.devOpts(1), []contracts.DepositFactoryDepositKey{{ReceiptId: chain.DepositReceiptKey(ids[0]), Split: common.HexToAddress(st.Address)}},
		[]common.Address{usdc.Address})
	e.mu.Unlock()
	e.waitMined(tx, err)

	h := e.sweeperOf(e.sweeper)
	e.sweepAll(h, ids...)
	if sw := e.sweptEvents(ids[0]); len(sw) != 1 || !strings.EqualFold(sw[0].TransactionHash, tx.Hash().Hex()) || sw[0].AmountUnits != "1000000" {
		t.Fatalf("swept by someone else: %+v, want the stranger's %s", sw, tx.Hash().Hex())
	}
	e.sweptOnce(ids[1:])
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("a pass after: %+v %v", out, err)
	}
}

// A process killed between claiming receipts and recording their sweep leaves its claims: the
// next process leaves them while they are live, and sweeps them once they are older than the
// lease, 10 s (30 s before stop 83; with two minutes, a receipt paid across a kill of serve stayed
// paid past the kill test's two-minute wait, stop 76).
func TestSweepDepositsTakesOverAKilledProcessClaims(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	ids := e.paidDeposits(merchant, st.Address, 2)
	killed, claimed := uuid.New(), map[string]bool{}
	wait.Until(t, "the killed process's claims", 30*time.Second, func() bool {
		cands, err := e.sweeps.Claim(e.ctx, killed, time.Minute, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			claimed[c.ReceiptID] = true
		}
		return claimed[ids[0]] && claimed[ids[1]]
	})
	claimedAgo := func(d time.Duration) {
		t.Helper()
		if _, err := e.pool.Exec(e.ctx, `UPDATE deposit_sweeps SET claimed_at = now() - make_interval(secs => $1) WHERE claim_token = $2`,
			d.Seconds(), killed); err != nil {
			t.Fatal(err)
		}
	}

	next := e.sweeperOf(e.sweeper)
	claimedAgo(7 * time.Second)
	if out, err := next.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("a pass under claims 7 s old: %+v %v, want nothing sent", out, err)
	}
	claimedAgo(11 * time.Second)
	e.sweepAll(next, ids...)
	e.sweptOnce(ids)
}

// signHeld is the sweeper's chain with a signer that waits for release before it signs: a pass
// held between its claims and the record of its sweep, as one with many deposits or a slow node.
type signHeld struct {
	*chain.Sweeper
	signing chan struct{} // closed as the first signature begins
	release chan struct{}
	once    sync.Once
}

func (s *signHeld) SignSweep(ctx context.Context, nonce uint64, deps []settlement.SweepDeposit) (settlement.SignedTx, error) {
	s.once.Do(func() { close(s.signing) })
	select {
	case <-s.release:
	case <-ctx.Done():
		return settlement.SignedTx{}, ctx.Err()
	}
	return s.Sweeper.SignSweep(ctx, nonce, deps)
}

// A pass slower than the lease keeps its claims: it restamps them while it runs, so another
// instance does not take them over, and its sweep is recorded and sent when it signs (before stop
// 83 the claims kept their first stamp: the other instance took them over after the lease, and the
// slow pass's sweep was refused as a lost claim).
func TestSweepDepositsASlowPassKeepsItsClaims(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	ids := e.paidDeposits(merchant, st.Address, 2)
	const lease = 2 * time.Second
	held := &signHeld{Sweeper: e.sweeper, signing: make(chan struct{}), release: make(chan struct{})}
	slow, other := e.sweeperOf(held).WithLease(lease), e.sweeperOf(e.sweeper).WithLease(lease)
	type result struct {
		out settlement.Swept
		err error
	}
	passed := make(chan result, 1)
	go func() {
		out, err := slow.Handle(e.ctx)
		passed <- result{out, err}
	}()
	<-held.signing
	var first time.Time
	if err := e.pool.QueryRow(e.ctx, `SELECT max(claimed_at) FROM deposit_sweeps WHERE receipt_id = ANY($1)`, ids).Scan(&first); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the slow pass's claims restamped past their first stamp's lease", 30*time.Second, func() bool {
		var n int
		if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM deposit_sweeps WHERE receipt_id = ANY($1) AND claim_token IS NOT NULL
			AND claimed_at > $2::timestamptz + make_interval(secs => $3)`, ids, first, lease.Seconds()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == len(ids)
	})
	if out, err := other.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("another instance's pass under the slow pass's claims: %+v %v, want nothing sent", out, err)
	}
	close(held.release)
	if r := <-passed; r.err != nil || r.out.Sent != 1 || r.out.Deposits != len(ids) {
		t.Fatalf("the slow pass: %+v %v, want both deposits in its sweep", r.out, r.err)
	}
	e.sweepAll(slow, ids...)
	e.sweptOnce(ids)
}

// signFails is the sweeper's chain with a node that refuses every signature's gas estimate: a
// pass claims its deposits and stops before recording a sweep, as one cut short by a stop.
type signFails struct{ *chain.Sweeper }

func (signFails) SignSweep(context.Context, uint64, []settlement.SweepDeposit) (settlement.SignedTx, error) {
	return settlement.SignedTx{}, errors.New("the node went away")
}

// A stopping serve gives its sweep claims up (Release), so the next instance sweeps those deposits
// in its first pass, not once the lease has lapsed as after a kill.
func TestSweepDepositsReleasedAtStopAreSweptAtOnce(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	ids := e.paidDeposits(merchant, st.Address, 2)
	stopping := e.sweeperOf(signFails{e.sweeper})
	claims := func() int {
		t.Helper()
		var n int
		if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM deposit_sweeps WHERE receipt_id = ANY($1) AND claim_token IS NOT NULL`, ids).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	wait.Until(t, "the stopping process's claims", 30*time.Second, func() bool {
		if _, err := stopping.Handle(e.ctx); err == nil {
			t.Fatal("a pass whose signature fails succeeded")
		}
		return claims() == len(ids)
	})
	next := e.sweeperOf(e.sweeper)
	if out, err := next.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("a pass under the stopping process's claims: %+v %v, want nothing sent", out, err)
	}
	if err := stopping.Release(e.ctx); err != nil {
		t.Fatal(err)
	}
	if n := claims(); n != 0 {
		t.Fatalf("%d claims left after the release", n)
	}
	out, err := next.Handle(e.ctx)
	if err != nil || out.Sent != 1 || out.Deposits != len(ids) {
		t.Fatalf("the first pass after the release: %+v %v, want both deposits in one sweep", out, err)
	}
	e.sweepAll(next, ids...)
	e.sweptOnce(ids)
}
