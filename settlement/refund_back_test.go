package settlement_test

// Stop 60: the refund probes of a review, each failing on the code before its fix.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// paidBy is paid, with the customer's paying transaction.
func (e *refundEnv) paidBy(cents int64) (receipt.State, *types.Transaction) {
	e.t.Helper()
	r := e.receipt(money.Cents(cents))
	d := e.detector()
	e.step(d)
	pay := e.payToken(e.usdc, r.DepositAddress(), cents*10_000)
	e.mined(pay)
	e.commit()
	e.step(d)
	return e.want(r.Receipt.ReceiptID, receipt.StatusPaid, money.Cents(cents).String()), pay
}

// claimTo is claim with refundTo.
func (e *refundEnv) claimTo(r receipt.State, amount, hash, refundTo string) (commands.Refunded, error) {
	return e.refunds.Handle(e.ctx, commands.Refund{ReceiptID: r.Receipt.ReceiptID, AmountUSD: amount, Reason: "customer asked",
		TransactionHash: hash, RefundTo: refundTo, By: r.Receipt.Merchant})
}

func refusedWith(t *testing.T, err error, code string) {
	t.Helper()
	var r *commands.Refusal
	if !errors.As(err, &r) || r.Code != code {
		t.Fatalf("err %v, want a refusal %s", err, code)
	}
}

// The customer's payment is not the merchant's refund: its hash, or refundTo the deposit address
// it paid, is 400 invalid_input and holds nothing (it used to be processed on chain proof:
// the payment itself "refunded" the receipt).
func TestRefundOfThePaymentItselfRefused(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r, pay := e.paidBy(1000)
	id, deposit := r.Receipt.ReceiptID, strings.ToLower(r.DepositAddress())
	_, err := e.claimTo(r, "", pay.Hash().Hex(), deposit)
	refusedWith(t, err, "invalid_input")
	_, err = e.claim(r, "", pay.Hash().Hex())
	refusedWith(t, err, "invalid_input")
	tx := e.send(deposit, 10_000_000) // the merchant pays the deposit: still not the customer
	e.mined(tx)
	_, err = e.claimTo(r, "", tx.Hash().Hex(), deposit)
	refusedWith(t, err, "invalid_input")
	_, err = e.claimTo(r, "", tx.Hash().Hex(), strings.ToLower(r.DepositSplit()))
	refusedWith(t, err, "invalid_input")
	for range 3 {
		e.commit()
		e.verify()
	}
	if st := e.state(id); st.Status != receipt.StatusPaid || st.RefundedCents != 0 || len(st.Refunds) != 0 {
		t.Fatalf("after: %s refunded %d %+v", st.Status, st.RefundedCents, st.Refunds)
	}
	var n int
	e.ok(e.pool.QueryRow(e.ctx, `SELECT count(*) FROM refund_claims`).Scan(&n))
	if n != 0 {
		t.Fatalf("%d hashes held", n)
	}
}

// The customer's own USDC transfer to itself, claimed without refundTo, is refused with the reason
// (it used to be processed: it reaches a payer).
func TestRefundCustomersOwnTransferRefused(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	tx, err := chain.SendToken(e.opts(e.buyer), e.sim, e.usdc, common.HexToAddress(e.customer), e.usdcOf(e.customer))
	e.ok(err)
	e.mined(tx)
	if _, err := e.claim(r, "", tx.Hash().Hex()); err != nil {
		t.Fatal(err)
	}
	e.commit()
	if res := e.verify(); res.Refused != 1 || res.Processed != 0 {
		t.Fatalf("step %+v", res)
	}
	st, rec := e.refund(id, tx.Hash().Hex())
	if st.Status != receipt.StatusPaid || st.RefundedCents != 0 || rec.State != receipt.RefundStateRefused || !strings.Contains(rec.RefusedReason, "is not a refund") {
		t.Fatalf("after: %s refunded %d %+v", st.Status, st.RefundedCents, rec)
	}
}

// A receipt holds at most receipt.MaxOpenRefundClaims claims waiting for the chain: the next is
// 409 conflict and holds no hash (1-cent claims of made-up hashes used to be taken without end).
func TestRefundOpenClaimsBounded(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	hash := func(i int) string { return fmt.Sprintf("0x%064x", i+1) }
	for i := range receipt.MaxOpenRefundClaims {
		if _, err := e.claim(r, "0.01", hash(i)); err != nil {
			t.Fatalf("claim %d: %v", i, err)
		}
	}
	_, err := e.claim(r, "0.01", hash(99))
	refusedWith(t, err, "conflict")
	var held bool
	e.ok(e.pool.QueryRow(e.ctx, `SELECT EXISTS (SELECT 1 FROM refund_claims WHERE transaction_hash = $1)`, hash(99)).Scan(&held))
	if held {
		t.Fatal("the refused claim holds its hash")
	}
}

// One merchant's open claims do not hold back another's refund: the verifier reads on from where
// its last full batch ended (it used to read the oldest 500 every step, so 501 older claims left
// a real refund unjudged for as long as they lived).
func TestRefundVerifierReadsEveryClaim(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	junk := e.paid(100) // the other merchant's receipt
	claims := pgstore.NewRefundClaims(e.pool)
	for i := range 501 {
		_, err := claims.Reserve(e.ctx, fmt.Sprintf("0x%064x", i+1), junk.Receipt.ReceiptID, e.clock.now().Add(-time.Second))
		e.ok(err)
	}
	r := e.paid(1000)
	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	e.commit() // at depth
	if _, err := e.claim(r, "", tx.Hash().Hex()); err != nil {
		t.Fatal(err)
	}
	for step := 1; ; step++ {
		if e.verify(); e.state(r.Receipt.ReceiptID).Status == receipt.StatusRefunded {
			break
		}
		if step == 2 { // 501 older claims: the second step reads the rest
			t.Fatalf("not judged after %d steps", step)
		}
	}
}

// hookedClaims runs beforeFree (once) before the first Free: what another request does between
// the verifier's refusal and its giving the hash back.
type hookedClaims struct {
	settlement.RefundClaimStore
	beforeFree func()
}

func (h *hookedClaims) Free(ctx context.Context, c settlement.RefundClaim, at time.Time) error {
	if f := h.beforeFree; f != nil {
		h.beforeFree = nil
		f()
	}
	return h.RefundClaimStore.Free(ctx, c, at)
}

// A hash claimed again on the same receipt between the verifier's refusal and its freeing of the
// hash stays held, and the new claim is judged (the free used to delete it: the claim was never
// judged and its hash was free for another receipt).
func TestRefundClaimedAgainWhileRefusedIsJudged(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id, other := r.Receipt.ReceiptID, newWallet(t)
	tx := e.send(other, 10_000_000) // to an address the first claim does not name
	e.mined(tx)
	e.commit()
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "", hash); err != nil {
		t.Fatal(err)
	}
	e.verifier.Claims = &hookedClaims{RefundClaimStore: e.verifier.Claims, beforeFree: func() {
		if _, err := e.claimTo(e.state(id), "", hash, other); err != nil {
			t.Errorf("the claim again: %v", err)
		}
	}}
	if res := e.verify(); res.Refused != 1 {
		t.Fatalf("step %+v", res)
	}
	if res := e.verify(); res.Processed != 1 {
		t.Fatalf("the claim made again: step %+v", res)
	}
	st, rec := e.refund(id, hash)
	if st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed || rec.Recipient != strings.ToLower(other) {
		t.Fatalf("after: %s %+v", st.Status, rec)
	}
}
