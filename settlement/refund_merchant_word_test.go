package settlement_test

// Stop 64: a refund on the merchant's word (a receipt paid by the onramp processor or at a
// terminal) proves nothing, yet it held its transaction hash service-wide: any merchant could
// refund a receipt of its own with the hash of another merchant's refund transaction, seen on
// chain, and that merchant's claim of its own refund was 409 conflict for good.

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// processorPaid is a receipt of merchant of cents paid through the onramp processor.
func (e *refundEnv) processorPaid(merchant string, cents int64) receipt.State {
	e.t.Helper()
	r := e.receiptOf(merchant, money.Cents(cents))
	u := receipt.ProcessorUpdate{SessionID: "cos_paid", Status: "fulfillment_complete", TransactionHash: "0x" + strings.Repeat("9", 64), At: 1}
	st, _, err := commands.ChangeReceipt(e.ctx, e.store, r.Receipt.ReceiptID, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		due, err := receipt.DueUSD(st)
		u.SourceAmountCents = (*int64)(&due)
		if err != nil {
			return nil, err
		}
		return receipt.DecideProcessorUpdate(st, u)
	})
	e.ok(err)
	if st.Status != receipt.StatusPaid || st.PaidOnChain() {
		e.t.Fatalf("processor payment: %s, on chain %v", st.Status, st.PaidOnChain())
	}
	return st
}

func TestRefundOnTheMerchantsWordHoldsNoOtherMerchantsHash(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	// Another merchant, who saw the refund on chain, refunds a receipt of its own with its hash.
	other := strings.ToLower(crypto.PubkeyToAddress(depositKey(t).PublicKey).Hex())
	mine, again := e.processorPaid(other, 100), e.processorPaid(other, 100)
	if _, err := e.claim(mine, "0.01", hash); err != nil {
		t.Fatalf("a refund on the merchant's word: %v", err)
	}
	if _, err := e.claim(r, "10", hash); err != nil {
		t.Fatalf("the merchant's claim of its own refund: %v", err)
	}
	e.processedAtDepth(t)
	if st, rec := e.refund(r.Receipt.ReceiptID, hash); st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed || rec.Proof != receipt.ProofChain {
		t.Fatalf("the refund: %s %+v", st.Status, rec)
	}
	// The word holds the hash for its own merchant still, past the verifier's grace.
	e.clock.advance(time.Hour)
	e.verify()
	if _, err := e.claim(again, "0.01", hash); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("the same hash on another receipt of the same merchant: %v, want a conflict", err)
	}
}
