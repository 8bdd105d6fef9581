package settlement_test

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// Stop 68: a refund proven on chain records where it came from (the sender of its transfer back)
// and shows it as `from` in refunds[] and receipt.refunded: the chain proves that money reached
// the customer, not whose it was, so the merchant (and an auditor) can tell a refund sent from
// the merchant's wallet from another's transfer claimed as one.
func TestRefundRecordsItsSender(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	tx := e.send(e.customer, 10_000_000)
	e.mined(tx)
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "", hash); err != nil {
		t.Fatal(err)
	}
	e.processedAtDepth(t)
	merchant := strings.ToLower(crypto.PubkeyToAddress(e.merchant.PublicKey).Hex())
	st, rec := e.refund(id, hash)
	if st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed || rec.Sender != merchant {
		t.Fatalf("after: %s %+v, want processed from %s", st.Status, rec, merchant)
	}
	if p := readmodels.RefundsPayloadOf(st).Refunds; len(p) != 1 || p[0].From == nil || *p[0].From != merchant {
		t.Fatalf("refunds[] %+v", p)
	}
	var from string
	e.ok(e.pool.QueryRow(e.ctx, `SELECT max(data->>'from') FROM webhook_events WHERE type = 'receipt.refunded'`).Scan(&from))
	if from != merchant {
		t.Fatalf("receipt.refunded from %q, want %s", from, merchant)
	}
}
