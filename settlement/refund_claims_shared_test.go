package settlement_test

// Stop 64: a claim of a refund hash held it service-wide from the claim, so a merchant with any
// receipt paid on chain could claim another merchant's refund hash on it: refused once the
// transaction was at depth (it pays none of that receipt's payers) and freed, but claimed again
// in a loop it kept the real claim answering 409 most of the time. Claims of a hash are held per
// receipt now; the first proven takes the hash, and a hash pays one refund only.

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

func TestRefundClaimOnAnotherReceiptHoldsNoHash(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	// Another merchant's receipt, paid on chain by a wallet of its own.
	other := strings.ToLower(crypto.PubkeyToAddress(depositKey(t).PublicKey).Hex())
	mine := e.receiptOf(other, money.Cents(100))
	d := e.detector()
	e.step(d)
	pay, err := chain.SendToken(e.opts(e.merchant), e.sim, e.usdc, common.HexToAddress(mine.DepositAddress()), big.NewInt(1_000_000))
	e.ok(err)
	e.mined(pay)
	e.commit()
	e.step(d)
	mine = e.want(mine.Receipt.ReceiptID, receipt.StatusPaid, "1.00")

	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(mine, "1", hash); err != nil { // seen on chain, claimed first
		t.Fatalf("the other merchant's claim: %v", err)
	}
	if _, err := e.claim(r, "10", hash); err != nil {
		t.Fatalf("the merchant's claim of its own refund while another receipt claims its hash: %v", err)
	}
	e.processedAtDepth(t)
	if st, rec := e.refund(r.Receipt.ReceiptID, hash); st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed {
		t.Fatalf("the refund: %s %+v", st.Status, rec)
	}
	if _, rec := e.refund(mine.Receipt.ReceiptID, hash); rec.State != receipt.RefundStateRefused {
		t.Fatalf("the other merchant's claim: %+v", rec)
	}
	if _, err := e.claim(mine, "1", hash); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("a claim again of the proven hash: %v, want a conflict", err)
	}
}

// One transfer proves claims on two receipts of one customer: the first proven takes it, the
// other is refused for it, and the customer's money counts once.
func TestRefundHashPaysTheFirstProvenClaimOnly(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	a, b := e.paid(500), e.paid(500)
	tx := e.send(e.customer, 5_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	for _, r := range []receipt.State{a, b} {
		if _, err := e.claim(r, "5", hash); err != nil {
			t.Fatalf("claim on %s: %v", r.Receipt.ReceiptID, err)
		}
	}
	if res := e.verify(); res.Processed != 0 || res.Refused != 0 {
		t.Fatalf("at depth 1: %+v", res)
	}
	e.commit()
	if res := e.verify(); res.Processed != 1 || res.Refused != 1 {
		t.Fatalf("at depth 2: %+v", res)
	}
	states := map[string]string{}
	for _, r := range []receipt.State{a, b} {
		_, rec := e.refund(r.Receipt.ReceiptID, hash)
		states[rec.State] = r.Receipt.ReceiptID
		if rec.State == receipt.RefundStateRefused && !strings.Contains(rec.RefusedReason, "counted for another refund") {
			t.Fatalf("refused for %q", rec.RefusedReason)
		}
	}
	if len(states) != 2 || states[receipt.RefundStateProcessed] == "" || states[receipt.RefundStateRefused] == "" {
		t.Fatalf("refunds: %v", states)
	}
	e.commit()
	if res := e.verify(); res != (settlement.RefundStepResult{}) {
		t.Fatalf("a step after: %+v", res)
	}
}
