package projections

import (
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// refundEvent is the event-log entry of a processed refund (DESIGN 10), keyed by the recording
// event so a refund taken back by a reorg and processed again is told again.
func refundEvent(st receipt.State, p receipt.RefundProcessed, e eventstore.RecordedEvent) readmodels.NewEvent {
	return readmodels.NewEvent{Key: "refunded:" + e.ID.String(), Merchant: st.Receipt.Merchant, Type: readmodels.EventReceiptRefunded,
		At: e.RecordedAt, Data: readmodels.ReceiptRefundedOf(st, p)}
}

// refundFailedEvent is the event-log entry of a refused claim.
func refundFailedEvent(st receipt.State, r receipt.RefundRefused, e eventstore.RecordedEvent) readmodels.NewEvent {
	return readmodels.NewEvent{Key: "refund-failed:" + e.ID.String(), Merchant: st.Receipt.Merchant, Type: readmodels.EventReceiptRefundFailed,
		At: e.RecordedAt, Data: readmodels.ReceiptRefundFailedOf(st, r)}
}
