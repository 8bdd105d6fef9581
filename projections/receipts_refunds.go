package projections

import (
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// Event-log types of refunds (DESIGN 10, "Refunds").
const (
	refunded     = "receipt.refunded"      // a refund was processed (on chain proof or the merchant's word)
	refundFailed = "receipt.refund_failed" // a claimed refund the chain does not support
)

// refundEvent is the event-log entry of a processed refund, keyed by the recording event so a
// refund taken back by a reorg and processed again is told again.
func refundEvent(st receipt.State, p receipt.RefundProcessed, e eventstore.RecordedEvent) readmodels.NewEvent {
	rec, _ := st.CountedRefund(p.TransactionHash)
	return readmodels.NewEvent{Key: "refunded:" + e.ID.String(), Merchant: st.Receipt.Merchant, Type: refunded, At: e.RecordedAt,
		Data: map[string]any{"receiptId": st.Receipt.ReceiptID, "status": string(st.Status), "amountUsd": money.Cents(p.AmountCents).Float(),
			"transactionHash": nullable(p.TransactionHash), "proof": first(p.Proof, receipt.ProofMerchant), "token": nullable(p.Token),
			"amount": nullable(rec.TokenAmount()), "to": nullable(p.Recipient), "refundedUsd": st.RefundedCents.Float(), "processedAt": p.At}}
}

// refundFailedEvent is the event-log entry of a refused claim.
func refundFailedEvent(st receipt.State, r receipt.RefundRefused, e eventstore.RecordedEvent) readmodels.NewEvent {
	return readmodels.NewEvent{Key: "refund-failed:" + e.ID.String(), Merchant: st.Receipt.Merchant, Type: refundFailed, At: e.RecordedAt,
		Data: map[string]any{"receiptId": st.Receipt.ReceiptID, "status": string(st.Status), "amountUsd": money.Cents(r.AmountCents).Float(),
			"transactionHash": r.TransactionHash, "reason": r.Reason, "refundedUsd": st.RefundedCents.Float(), "refusedAt": r.At}}
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
