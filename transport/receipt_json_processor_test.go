package transport

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// Stop 71: the hand-written receipt answer writes processorRefundedUsd (omitted when 0),
// unvaluedExcess (omitted when empty) and each refund's processorPayment flag as encoding/json does.
func TestReceiptJSONWithProcessorRefundsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(71, 5))
	for i := range 1000 {
		v := randomView(r)
		v.ProcessorRefundedUSD = []float64{0, floatSamples[r.IntN(len(floatSamples))]}[i%2]
		v.ProcessorToRefundUSD = []float64{floatSamples[r.IntN(len(floatSamples))], 0}[i%2]
		if i%3 == 0 {
			v.UnvaluedExcess = []receipt.TokenAmount{{Token: "ETH", Amount: "0.015"}, {Token: "WBTC", Amount: "0.0001"}}
		}
		if len(v.Refunds) > 0 {
			v.Refunds[0].ProcessorPayment = true
		} else {
			v.Refunds = []readmodels.RefundPayload{{AmountUSD: 10, State: "processed", ProcessorPayment: true}}
		}
		want := answerWith(t, "/api/orders", func(c echo.Context) error {
			return c.JSON(http.StatusCreated, map[string]any{"ok": true, "receipt": v})
		})
		got := answerWith(t, "/api/orders", func(c echo.Context) error { return answerIssued(c, http.StatusCreated, v) })
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
			t.Fatalf("wrote %s\nencoding/json: %s", got.Body, want.Body)
		}
		if v.ProcessorRefundedUSD != 0 && !bytes.Contains(got.Body.Bytes(), []byte(`"processorRefundedUsd":`)) {
			t.Fatalf("no processorRefundedUsd in %s", got.Body)
		}
	}
}
