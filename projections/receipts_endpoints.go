package projections

import (
	"fmt"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// paymentDetected is the type of a transfer seen at a receipt's deposit address (DESIGN 9).
const paymentDetected = "receipt.payment_detected"

// detectedEvent is the event-log entry of a transfer seen at the receipt's deposit address, keyed
// by the transfer so a transfer seen again (in another block after a reorg) is recorded once.
func detectedEvent(st receipt.State, d receipt.DepositTransferSeen, e eventstore.RecordedEvent) readmodels.NewEvent {
	return readmodels.NewEvent{Key: fmt.Sprintf("payment-detected:%s:%d", strings.ToLower(d.TransactionHash), d.LogIndex),
		Merchant: st.Receipt.Merchant, Type: paymentDetected, At: e.RecordedAt,
		Data: map[string]any{"receiptId": st.Receipt.ReceiptID, "status": string(st.Status), "depositAddress": st.DepositAddress(),
			"transactionHash": d.TransactionHash, "logIndex": d.LogIndex, "blockNumber": d.BlockNumber, "sender": d.Sender,
			"token": d.Token, "amountUnits": d.AmountUnits, "amountRequired": nullable(st.AmountRequired()),
			"amountReceived": nullable(st.AmountReceived()), "detectedAt": d.At}}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// statusUpdated is the type of a status change's event (webhooks.Event; projections does not
// depend on the sender).
const statusUpdated = "receipt.status_updated"

// statusEvent is the event-log entry of a receipt's status change: the spec's webhook payload
// (as the per-receipt webhook's, with the change's idempotency key), keyed by that key so a
// status change is recorded once.
func (r Receipts) statusEvent(st receipt.State) readmodels.NewEvent {
	if r.EndpointData == nil {
		return readmodels.NewEvent{}
	}
	at := time.UnixMilli(st.UpdatedAt)
	data := r.EndpointData(st)
	data["event"], data["idempotencyKey"], data["timestamp"] = statusUpdated, st.IdempotencyKey(), at.UnixMilli()
	return readmodels.NewEvent{Key: st.IdempotencyKey(), Merchant: st.Receipt.Merchant, Type: statusUpdated, Data: data, At: at}
}

// splitEvent is the event-log entry of a receipt's split distribution.
func (r Receipts) splitEvent(st receipt.State, d *receipt.SplitDistributed, e eventstore.RecordedEvent) readmodels.NewEvent {
	amounts := d.Amounts
	if amounts == nil {
		amounts = []receipt.SplitAmount{}
	}
	return readmodels.NewEvent{Key: "split-distributed:" + e.ID.String(), Merchant: st.Receipt.Merchant, Type: "split.distributed",
		At: e.RecordedAt, Data: map[string]any{"receiptId": st.Receipt.ReceiptID, "transactionHash": d.TransactionHash,
			"transactionHashes": d.TransactionHashes, "token": d.Token, "amounts": amounts, "distributedAt": d.At}}
}
