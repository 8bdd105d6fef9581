package settlement_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// TestRefundToANamedAddressTakesNoOtherMerchantsHash (stop 66): a claim proven through the
// refundTo its merchant named took the hash service-wide, as one proven to a payer does. Any
// merchant with a receipt paid on chain could claim another merchant's refund transaction (seen
// on chain or in the mempool) naming that refund's recipient as refundTo: proven first, it took
// the hash, and the real merchant's claim was refused ("counted for another refund"), or 409 for
// good once claimed after: the customer had the money back and the receipt could never show it.
// A proof through a named address is the merchant's word on where the customer wanted the money;
// it now holds the hash for its merchant only ("<hash>/<merchant>", as a refund on the merchant's
// word does), and the real merchant's claim is judged and processed.
func TestRefundToANamedAddressTakesNoOtherMerchantsHash(t *testing.T) {
	t.Parallel()
	e := newRefundEnvWith(t, 3)
	r := e.paid(1000)
	// Another merchant's receipt, paid on chain by a customer of its own (buyers[2]).
	other := strings.ToLower(crypto.PubkeyToAddress(depositKey(t).PublicKey).Hex())
	theirs := e.receiptOf(other, money.Cents(100))
	d := e.detector()
	e.step(d)
	pay, err := chain.SendToken(e.opts(e.buyers[2]), e.sim, e.usdc, common.HexToAddress(theirs.DepositAddress()), big.NewInt(1_000_000))
	e.ok(err)
	e.mined(pay)
	e.commit()
	e.step(d)
	theirs = e.want(theirs.Receipt.ReceiptID, receipt.StatusPaid, "1.00")

	tx := e.send(e.customer, 10_000_000) // the merchant's refund of r to its customer
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.refunds.Handle(e.ctx, commands.Refund{ReceiptID: theirs.Receipt.ReceiptID, AmountUSD: "1", Reason: "r",
		TransactionHash: hash, RefundTo: e.customer, By: other}); err != nil {
		t.Fatalf("the other merchant's claim naming the customer: %v", err)
	}
	e.commit()
	e.verify()
	if _, rec := e.refund(theirs.Receipt.ReceiptID, hash); rec.State != receipt.RefundStateProcessed {
		t.Fatalf("the other merchant's claim at depth: %+v", rec)
	}
	// The merchant records its refund later (sent from its wallet, the hash pasted).
	if _, err := e.claim(r, "10", hash); err != nil {
		t.Fatalf("the merchant's claim of its own refund: %v", err)
	}
	e.commit()
	e.verify()
	if st, rec := e.refund(r.Receipt.ReceiptID, hash); st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed {
		t.Fatalf("the merchant's refund: %s %+v", st.Status, rec)
	}
}

// A claim held for its merchant ("<hash>/<merchant>": refundTo named elsewhere) goes through the
// verifier as any claim: a made-up hash is refused after the hour, and a counted refund a reorg
// drops is taken back.
func TestRefundToANamedAddressIsJudgedAsAnyClaim(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	to := newWallet(t)
	named := func(amount, hash string) {
		t.Helper()
		if _, err := e.refunds.Handle(e.ctx, commands.Refund{ReceiptID: id, AmountUSD: amount, Reason: "r", TransactionHash: hash,
			RefundTo: to, By: r.Receipt.Merchant}); err != nil {
			t.Fatalf("claim %s: %v", hash, err)
		}
	}
	madeUp := "0x" + strings.Repeat("ab", 32)
	named("4", madeUp)
	e.clock.advance(2 * time.Hour)
	if res := e.verify(); res.Refused != 1 {
		t.Fatalf("a made-up hash after the hour: %+v", res)
	}
	if _, rec := e.refund(id, madeUp); rec.State != receipt.RefundStateRefused {
		t.Fatalf("the made-up claim: %+v", rec)
	}

	fork, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	tx := e.send(to, 10_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	named("10", hash)
	e.commit()
	e.verify()
	if st, rec := e.refund(id, hash); st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed {
		t.Fatalf("at depth: %s %+v", st.Status, rec)
	}
	e.ok(e.b.Fork(fork.Hash()))
	e.replace(tx)
	for range 4 {
		e.commit()
	}
	res := e.verify()
	if st, rec := e.refund(id, hash); res.Reverted != 1 || st.Status != receipt.StatusRefundRequested || rec.State != receipt.RefundStateClaimed {
		t.Fatalf("dropped by a reorg: %+v %s %+v", res, st.Status, rec)
	}
}
