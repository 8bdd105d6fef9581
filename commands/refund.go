package commands

import (
	"context"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// Refund requests a refund of a paid receipt (without a transaction hash) or records one as
// processed (with the hash of the refund's transaction).
type Refund struct {
	ReceiptID       string
	AmountUSD       string // "": the whole unrefunded total
	Reason          string
	TransactionHash string // "": a request
	By              string // the merchant's (or admin's) wallet
	Admin           bool   // a platform admin may refund any merchant's receipt
	Meta            eventstore.Metadata
}

// Refunded is a receipt after a refund.
type Refunded struct {
	State  receipt.State
	Result eventstore.AppendResult
}

// RefundHandler refunds receipts.
type RefundHandler struct {
	store Store
	now   func() time.Time
}

// NewRefundHandler returns the handler. It panics on a nil dependency.
func NewRefundHandler(store Store, now func() time.Time) *RefundHandler {
	if store == nil || now == nil {
		panic("commands.NewRefundHandler: nil dependency")
	}
	return &RefundHandler{store: store, now: now}
}

// Handle checks the refund's shape, then applies receipt.Refund. Another merchant's receipt is
// not there for the caller (receipt.ErrNotFound) unless the caller is a platform admin. Errors:
// Invalid, receipt.ErrNotFound, receipt.ErrState, receipt.ErrAmount, ErrContended, wrapped store
// errors.
func (h *RefundHandler) Handle(ctx context.Context, cmd Refund) (Refunded, error) {
	if cmd.ReceiptID == "" || strings.TrimSpace(cmd.Reason) == "" || len(cmd.Reason) > 500 {
		return Refunded{}, Invalid("receiptId and a reason (up to 500 characters) are required")
	}
	if cmd.TransactionHash != "" && !txHashRE.MatchString(cmd.TransactionHash) {
		return Refunded{}, Invalid(msgTxHash)
	}
	var amount int64
	if cmd.AmountUSD != "" {
		c, err := money.ParseCents(cmd.AmountUSD)
		if err != nil || c == 0 {
			return Refunded{}, Invalid(msgAmount)
		}
		amount = int64(c)
	}
	st, res, err := ChangeReceipt(ctx, h.store, cmd.ReceiptID, cmd.Meta, func(st receipt.State) ([]receipt.Event, error) {
		if st.Receipt.Merchant != cmd.By && !cmd.Admin {
			return nil, receipt.ErrNotFound
		}
		return receipt.Refund(st, amount, cmd.Reason, strings.ToLower(cmd.TransactionHash), cmd.By, h.now().UnixMilli())
	})
	if err != nil {
		return Refunded{}, err
	}
	return Refunded{State: st, Result: res}, nil
}
