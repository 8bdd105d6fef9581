package transport

import (
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// anyReceipt reads receipt id of any merchant (the customer's pages and polling); one the read
// model does not show yet is folded from its events; an unknown id is "Receipt not found".
func (s *Server) anyReceipt(c echo.Context, id string) (readmodels.ReceiptRow, error) {
	row, err := s.receipts.Get(c.Request().Context(), "", id)
	if errors.Is(err, readmodels.ErrNotFound) {
		row.State, err = s.receiptFromEvents(c.Request().Context(), id)
		if errors.Is(err, errReceiptNotFound) {
			return row, commands.ErrReceiptNotFound
		}
	}
	return row, err
}

// publicReceiptView is the receipt as anyone with its id sees it: without the merchant's
// metadata, which is the merchant's own (DESIGN 9). The shadowing field, empty, drops it. The
// payment by address (receiptView's depositView: where to pay, what is required and has
// arrived, paidLate) and the end of its payment window (expiresAt, Unix ms; null for none).
type publicReceiptView struct {
	receiptView
	Metadata  *struct{} `json:"metadata,omitempty"`
	ExpiresAt *int64    `json:"expiresAt"`
}

// publicReceiptOf is st as publicReceiptView shows it.
func publicReceiptOf(st receipt.State) publicReceiptView {
	v := publicReceiptView{receiptView: viewReceipt(st)}
	if at := st.ExpiresAt(); at > 0 {
		v.ExpiresAt = &at
	}
	return v
}

// PublicReceiptOf is st as anyone with its id sees it (the payment page's JSON, transport/portal).
func PublicReceiptOf(st receipt.State) any { return publicReceiptOf(st) }
