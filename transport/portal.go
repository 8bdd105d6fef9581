package transport

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/readmodels"
)

// anyReceipt reads receipt id of any merchant (the customer's pages and polling); an unknown id
// is "Receipt not found".
func (s *Server) anyReceipt(c echo.Context, id string) (readmodels.ReceiptRow, error) {
	row, err := s.receipts.Get(c.Request().Context(), "", id)
	if errors.Is(err, readmodels.ErrNotFound) {
		return row, commands.ErrReceiptNotFound
	}
	return row, err
}

// paymentPage serves the customer payment page of a receipt (both the order-flow /portal/ and
// the quick-start /pay/ paths serve the same page).
func (s *Server) paymentPage(c echo.Context) error {
	if _, err := s.anyReceipt(c, c.Param("id")); err != nil {
		return err
	}
	s.assets.ServePage(c.Response(), c.Param("id"))
	return nil
}

// portalReceipt is the receipt as the payment page shows it to the customer.
func (s *Server) portalReceipt(c echo.Context) error {
	row, err := s.anyReceipt(c, c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"receipt": viewReceipt(row.State)})
}
