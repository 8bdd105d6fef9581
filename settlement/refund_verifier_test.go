package settlement_test

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
)

// Issue 41: a made-up hash never refunds. The claim waits while the chain does not show the
// transaction, then is refused; the hash is free again.
func TestRefundMadeUpHashNeverRefunds(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id, hash := r.Receipt.ReceiptID, "0x"+strings.Repeat("ab", 32)
	out, err := e.claim(r, "10", hash)
	if err != nil || out.State.Status != receipt.StatusRefundRequested || out.State.RefundedCents != 0 {
		t.Fatalf("claim: %s refunded %d: %v", out.State.Status, out.State.RefundedCents, err)
	}
	for range 3 {
		e.commit()
		e.verify()
	}
	if st, rec := e.refund(id, hash); st.Status != receipt.StatusRefundRequested || rec.State != receipt.RefundStateClaimed || st.RefundedCents != 0 {
		t.Fatalf("before the wait: %s %+v", st.Status, rec)
	}
	e.clock.advance(time.Hour + time.Second)
	if res := e.verify(); res.Refused != 1 || res.Processed != 0 {
		t.Fatalf("step %+v", res)
	}
	st, rec := e.refund(id, hash)
	if st.Status != receipt.StatusPaid || rec.State != receipt.RefundStateRefused || !strings.Contains(rec.RefusedReason, "not on the chain") || st.RefundedCents != 0 {
		t.Fatalf("after the wait: %s %+v", st.Status, rec)
	}
	if e.count(id, receipt.EventRefundProcessed) != 0 || e.count(id, receipt.EventRefundRefused) != 1 {
		t.Fatal("the history does not say it")
	}
	// The refusal is in the merchant's event log, for the webhook endpoints.
	var n int
	e.ok(e.pool.QueryRow(e.ctx, `SELECT count(*) FROM webhook_events WHERE type = 'receipt.refund_failed'`).Scan(&n))
	if n != 1 {
		t.Fatalf("%d receipt.refund_failed", n)
	}
}

// A real transfer that does not refund the receipt is refused with what the chain shows: to
// someone else, too little, or a failed transaction.
func TestRefundUnrelatedTransferRefused(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	cases := []struct {
		name   string
		to     func() string
		units  int64
		reason string
	}{
		{"to someone else", func() string { return newWallet(t) }, 5_000_000, "sends no USDC to a payer of the receipt"},
		{"too little", func() string { return e.customer }, 4_999_999, "less than the refund's 5000000"},
	}
	for _, c := range cases {
		r := e.paid(1000)
		tx := e.send(c.to(), c.units)
		e.mined(tx)
		if _, err := e.claim(r, "5", tx.Hash().Hex()); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		e.verify() // depth 1: waits
		if _, rec := e.refund(r.Receipt.ReceiptID, tx.Hash().Hex()); rec.State != receipt.RefundStateClaimed {
			t.Fatalf("%s: before the depth: %+v", c.name, rec)
		}
		e.commit()
		e.verify()
		st, rec := e.refund(r.Receipt.ReceiptID, tx.Hash().Hex())
		if st.Status != receipt.StatusPaid || rec.State != receipt.RefundStateRefused || !strings.Contains(rec.RefusedReason, c.reason) {
			t.Fatalf("%s: %s %+v", c.name, st.Status, rec)
		}
	}
}

// A real refund transfer is processed at depth, once, with what the chain showed; its hash cannot
// count for another refund (409 conflict), on this receipt or another.
func TestRefundProcessedAtDepthOnce(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	other := e.paid(500)
	id := r.Receipt.ReceiptID
	before := e.usdcOf(e.customer)
	tx := e.send(e.customer, 5_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "5", hash); err != nil {
		t.Fatal(err)
	}
	e.processedAtDepth(t)
	st, rec := e.refund(id, hash)
	if st.Status != receipt.StatusPaid || st.RefundedCents != 500 || st.RequestedCents != 0 || rec.State != receipt.RefundStateProcessed ||
		rec.Proof != receipt.ProofChain || rec.Token != "USDC" || rec.AmountUnits != "5000000" || rec.Recipient != e.customer || rec.BlockNumber == 0 {
		t.Fatalf("after: %s refunded %d %+v", st.Status, st.RefundedCents, rec)
	}
	if n := e.count(id, receipt.EventRefundProcessed); n != 1 {
		t.Fatalf("%d RefundProcessed", n)
	}
	var told int
	var proof, amount, to string
	e.ok(e.pool.QueryRow(e.ctx, `SELECT count(*), max(data->>'proof'), max(data->>'amount'), max(data->>'to') FROM webhook_events
		WHERE type = 'receipt.refunded'`).Scan(&told, &proof, &amount, &to))
	if told != 1 || proof != "chain" || amount != "5.00" || to != e.customer {
		t.Fatalf("receipt.refunded told %d times: %s %s %s", told, proof, amount, to)
	}
	if got := new(big.Int).Sub(e.usdcOf(e.customer), before); got.Int64() != 5_000_000 {
		t.Fatalf("the customer received %s", got)
	}
	for _, again := range []receipt.State{r, other} {
		if _, err := e.claim(again, "1", hash); !errors.Is(err, commands.ErrRefundHashTaken) {
			t.Fatalf("hash reused on %s: %v", again.Receipt.ReceiptID, err)
		}
	}
	// The rest, by a second transfer: refunded.
	rest := e.send(e.customer, 5_000_000)
	e.mined(rest)
	if _, err := e.claim(r, "", rest.Hash().Hex()); err != nil {
		t.Fatal(err)
	}
	e.commit()
	e.verify()
	if st := e.state(id); st.Status != receipt.StatusRefunded || st.RefundedCents != 1000 {
		t.Fatalf("after the rest: %s %d", st.Status, st.RefundedCents)
	}
}

// A reorg past the depth that takes a counted refund's transaction off the chain takes the refund
// back (a claim again); one that mines it again in the new branch keeps it, at its new block.
func TestRefundReorgTakesItBack(t *testing.T) {
	t.Parallel()
	for _, dropped := range []bool{true, false} {
		t.Run(map[bool]string{true: "dropped", false: "mined again"}[dropped], func(t *testing.T) {
			e := newRefundEnv(t)
			r := e.paid(1000)
			id := r.Receipt.ReceiptID
			fork, err := e.sim.HeaderByNumber(e.ctx, nil)
			e.ok(err)
			tx := e.send(e.customer, 10_000_000)
			e.mined(tx)
			if _, err := e.claim(r, "", tx.Hash().Hex()); err != nil {
				t.Fatal(err)
			}
			e.commit()
			e.verify()
			if st := e.state(id); st.Status != receipt.StatusRefunded {
				t.Fatalf("before the reorg: %s", st.Status)
			}
			_, counted := e.refund(id, tx.Hash().Hex())
			e.ok(e.b.Fork(fork.Hash()))
			if dropped {
				e.replace(tx)
			}
			for range 4 {
				e.commit()
			}
			res := e.verify()
			st, rec := e.refund(id, tx.Hash().Hex())
			if !dropped {
				if res.Reverted != 0 || st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed {
					t.Fatalf("mined again: %+v %s %+v", res, st.Status, rec)
				}
				return
			}
			if res.Reverted != 1 || st.Status != receipt.StatusRefundRequested || st.RefundedCents != 0 || rec.State != receipt.RefundStateClaimed ||
				e.count(id, receipt.EventRefundReverted) != 1 {
				t.Fatalf("dropped: %+v %s refunded %d %+v (was %+v)", res, st.Status, st.RefundedCents, rec, counted)
			}
			e.clock.advance(2 * time.Hour) // never mined again: refused in the end
			e.verify()
			if st, rec := e.refund(id, tx.Hash().Hex()); st.Status != receipt.StatusPaid || rec.State != receipt.RefundStateRefused {
				t.Fatalf("in the end: %s %+v", st.Status, rec)
			}
		})
	}
}

// Funds that paid nothing (4 USDC of a 10.00 receipt whose window ended) are refunded on the
// chain's proof too; the receipt stays failed.
func TestRefundOfFundsThatPaidNothing(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.receipt(1000)
	id := r.Receipt.ReceiptID
	d := e.detector()
	e.step(d)
	e.mined(e.payToken(e.usdc, r.DepositAddress(), 4_000_000))
	e.commit()
	e.step(d)
	_, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(receipt.State) ([]receipt.Event, error) {
		return []receipt.Event{receipt.PaymentWindowExpired{ExpiresAt: 1, MonitorUntil: 2, Code: "PORTAL_SESSION_EXPIRED", At: time.Now().UnixMilli()}}, nil
	})
	e.ok(err)
	if st := e.state(id); st.Status != receipt.StatusFailed || st.RefundableCents() != 400 {
		t.Fatalf("setup: %s refundable %d", st.Status, st.RefundableCents())
	}
	if _, err := e.claim(r, "", ""); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("a request without a hash: %v", err)
	}
	tx := e.send(e.customer, 4_000_000)
	e.mined(tx)
	if _, err := e.claim(r, "", tx.Hash().Hex()); err != nil {
		t.Fatal(err)
	}
	e.commit()
	if res := e.verify(); res.Processed != 1 {
		t.Fatalf("step %+v", res)
	}
	st, rec := e.refund(id, tx.Hash().Hex())
	if st.Status != receipt.StatusFailed || st.RefundedCents != 400 || rec.State != receipt.RefundStateProcessed || rec.Proof != receipt.ProofChain {
		t.Fatalf("after: %s refunded %d %+v", st.Status, st.RefundedCents, rec)
	}
}

// Two verifiers stepping at once (two instances) record a refund once.
func TestRefundTwoVerifiersRecordOnce(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	if _, err := e.claim(r, "", tx.Hash().Hex()); err != nil {
		t.Fatal(err)
	}
	e.commit()
	other := *e.verifier
	errs := make(chan error, 2)
	for _, v := range []*settlement.RefundVerifier{e.verifier, &other} {
		go func() { _, err := v.Step(e.ctx); errs <- err }()
	}
	for range 2 {
		if err := <-errs; err != nil && !errors.Is(err, receipt.ErrState) {
			t.Fatal(err)
		}
	}
	e.synced()
	if n := e.count(r.Receipt.ReceiptID, receipt.EventRefundProcessed); n != 1 {
		t.Fatalf("%d RefundProcessed", n)
	}
	if st := e.state(r.Receipt.ReceiptID); st.Status != receipt.StatusRefunded {
		t.Fatalf("status %s", st.Status)
	}
}

// Stop 63: the verifier counted a refund on the receipt's word for its block. A node that serves
// a branch a reorg left (a lagging node behind a provider's load balancer) answered the receipt
// of a transaction the chain no longer holds, at depth by the head another node gave, and the
// refund was recorded processed (receipt.refunded told) on a block not on the chain. The block's
// hash is now read at its number first; the claim waits.
func TestRefundOnABlockOffTheChainIsNotCounted(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	fork, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "", hash); err != nil {
		t.Fatal(err)
	}
	stale, found, err := e.verifier.Chain.Transaction(e.ctx, hash)
	if err != nil || !found {
		t.Fatalf("the refund's receipt: %v %v", found, err)
	}
	e.ok(e.b.Fork(fork.Hash()))
	e.replace(tx)
	for range 4 {
		e.commit()
	}
	e.verifier.Chain = staleReceipts{RefundChain: e.verifier.Chain, stale: map[string]settlement.RefundTx{hash: stale}}
	res, err := e.verifier.Step(e.ctx)
	e.synced()
	st, rec := e.refund(id, hash)
	if res.Processed != 0 || st.Status != receipt.StatusRefundRequested || rec.State != receipt.RefundStateClaimed ||
		e.count(id, receipt.EventRefundProcessed) != 0 {
		t.Fatalf("counted on a block off the chain: %+v %s %+v", res, st.Status, rec)
	}
	if err == nil || !strings.Contains(err.Error(), "not on the chain") {
		t.Fatalf("the step's error: %v", err)
	}
}

// staleReceipts is a node that answers the receipts of stale as they were before a reorg.
type staleReceipts struct {
	settlement.RefundChain
	stale map[string]settlement.RefundTx
}

func (s staleReceipts) Transaction(ctx context.Context, hash string) (settlement.RefundTx, bool, error) {
	if tx, ok := s.stale[hash]; ok {
		return tx, true, nil
	}
	return s.RefundChain.Transaction(ctx, hash)
}

// Stop 63: a counted refund whose transaction a reorg mined again in another block was kept at
// the new block on its success alone. The same transaction may move other amounts in another
// branch (sent through a contract whose transfers depend on the state it runs on): it is judged
// again there, and one the new block does not prove is taken back and then refused.
func TestRefundMinedAgainIsJudgedAgain(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	fork, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "", hash); err != nil {
		t.Fatal(err)
	}
	e.commit()
	e.verify()
	if st := e.state(id); st.Status != receipt.StatusRefunded {
		t.Fatalf("before the reorg: %s", st.Status)
	}
	e.ok(e.b.Fork(fork.Hash()))
	for range 4 {
		e.commit()
	}
	// In the new branch the transaction sends the customer one base unit.
	e.verifier.Chain = lessSent{RefundChain: e.verifier.Chain, hash: hash}
	res := e.verify()
	st, rec := e.refund(id, hash)
	if res.Reverted != 1 || st.Status != receipt.StatusRefundRequested || st.RefundedCents != 0 || rec.State != receipt.RefundStateClaimed {
		t.Fatalf("mined again sending less: %+v %s refunded %d %+v", res, st.Status, st.RefundedCents, rec)
	}
	e.verify()
	if st, rec := e.refund(id, hash); st.Status != receipt.StatusPaid || rec.State != receipt.RefundStateRefused || !strings.Contains(rec.RefusedReason, "less than") {
		t.Fatalf("judged again: %s %+v", st.Status, rec)
	}
}

// lessSent is a chain whose transaction hash moves one base unit in each of its transfers.
type lessSent struct {
	settlement.RefundChain
	hash string
}

func (l lessSent) Transaction(ctx context.Context, hash string) (settlement.RefundTx, bool, error) {
	tx, found, err := l.RefundChain.Transaction(ctx, hash)
	if found && strings.EqualFold(hash, l.hash) {
		tx.Transfers = slices.Clone(tx.Transfers)
		for i := range tx.Transfers {
			tx.Transfers[i].AmountUnits = "1"
		}
	}
	return tx, found, err
}
