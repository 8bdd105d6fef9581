package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// paymentPage serves the customer payment page of a receipt (both the order-flow /portal/ and
// the quick-start /pay/ paths serve the same page).
func (s *Server) paymentPage(c echo.Context) error {
	if _, err := s.receipts.Get(c.Request().Context(), "", c.Param("id")); err != nil {
		return err
	}
	s.assets.ServePage(c.Response(), c.Param("id"))
	return nil
}

// portalReceipt is the receipt as the payment page shows it to the customer.
func (s *Server) portalReceipt(c echo.Context) error {
	row, err := s.receipts.Get(c.Request().Context(), "", c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"receipt": viewReceipt(row.State)})
}
