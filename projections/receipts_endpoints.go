package projections

import (
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// The merchants' event-log entries the receipts projector records (webhook endpoints, the event
// stream); their data are readmodels' typed payloads, the same the deliveries send.

// detectedEvent is the event-log entry of a transfer seen at the receipt's deposit address (fo's
// state after it), keyed by the transfer so a transfer seen again (in another block after a
// reorg) is recorded once.
func detectedEvent(fo *receipt.Folder, d receipt.DepositTransferSeen, e eventstore.RecordedEvent) readmodels.NewEvent {
	return readmodels.NewEvent{Key: readmodels.PaymentDetectedKey(d), Merchant: fo.Peek().Receipt.Merchant, Type: readmodels.EventReceiptPaymentDetected,
		At: e.RecordedAt, Data: paymentDetectedOf(fo, d)}
}

// paymentDetectedOf is readmodels.PaymentDetectedOf of fo's state, with its two amounts read
// from fo's running sums (stop 73): the state's own sum all the receipt's credits, so each
// sighting of a batch cost the receipt's credits and a catch-up of k sightings of a receipt of n
// credits k×n (TestPaymentDetectedIsTheStates compares it with PaymentDetectedOf's).
func paymentDetectedOf(fo *receipt.Folder, d receipt.DepositTransferSeen) readmodels.PaymentDetected {
	return readmodels.PaymentDetectedWith(fo.Peek(), fo, d)
}

// statusEvent is the event-log entry of a receipt's status change at version: the receipt
// webhook's payload (readmodels.ReceiptWebhookOf, at the change's time), keyed by the change
// (readmodels.StatusChangeKey) so a status change is recorded once and a status the receipt
// returns to is recorded again.
func (r Receipts) statusEvent(st receipt.State, version uint64) readmodels.NewEvent {
	at := time.UnixMilli(st.UpdatedAt)
	return readmodels.NewEvent{Key: readmodels.StatusChangeKey(st, version), Merchant: st.Receipt.Merchant, Type: readmodels.EventReceiptStatusUpdated,
		Data: readmodels.ReceiptWebhookOf(st, at), At: at}
}

// splitEvent is the event-log entry of a receipt's split distribution.
func (r Receipts) splitEvent(st receipt.State, d receipt.SplitDistributed, e eventstore.RecordedEvent) readmodels.NewEvent {
	return readmodels.NewEvent{Key: "split-distributed:" + e.ID.String(), Merchant: st.Receipt.Merchant, Type: readmodels.EventSplitDistributed,
		At: e.RecordedAt, Data: readmodels.SplitDistributedOf(st, d)}
}
