package transport

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
)

// Stop 70: the hand-written receipt answer writes refundedExcessUsd (omitted when 0) and each
// refund's excess flag as encoding/json does.
func TestReceiptJSONWithTheExcessAsEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(70, 3))
	for i := range 1000 {
		v := randomView(r)
		v.RefundedExcessUSD = []float64{0, floatSamples[r.IntN(len(floatSamples))]}[i%2]
		if len(v.Refunds) > 0 {
			v.Refunds[0].Excess = true
		} else {
			v.Refunds = []readmodels.RefundPayload{{AmountUSD: 2, State: "processed", Excess: true}}
		}
		want := answerWith(t, "/api/orders", func(c echo.Context) error {
			return c.JSON(http.StatusCreated, map[string]any{"ok": true, "receipt": v})
		})
		got := answerWith(t, "/api/orders", func(c echo.Context) error { return answerIssued(c, http.StatusCreated, v) })
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
			t.Fatalf("wrote %s\nencoding/json: %s", got.Body, want.Body)
		}
		if v.RefundedExcessUSD != 0 && !bytes.Contains(got.Body.Bytes(), []byte(`"refundedExcessUsd":`)) {
			t.Fatalf("no refundedExcessUsd in %s", got.Body)
		}
	}
}
