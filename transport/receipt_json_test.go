package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/readmodels"
)

// Issue 38: an issued receipt's answer is written by hand (receipt_json.go). It is byte for byte
// what c.JSON wrote, whatever the receipt holds.

var jsonSamples = []string{"", "latte", "Café ☕", "<b>&amp;</b>", "quote \" back \\ slash", "tab\tnl\ncr\r",
	"\x00\x01\x1f\x7f", "\u2028\u2029", "bad \xff utf8", "0x" + "ab12", "emoji 🎉", "é"}

var floatSamples = []float64{0, -0.0, 1, 0.1, 12.34, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, 123456789012345678901234.0,
	-3.25, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.07250000000000001, 1e-100}

func randomView(r *rand.Rand) receiptView {
	str := func() string { return jsonSamples[r.IntN(len(jsonSamples))] }
	num := func() float64 { return floatSamples[r.IntN(len(floatSamples))] }
	ptr := func() *string {
		if r.IntN(3) == 0 {
			return nil
		}
		s := str()
		return &s
	}
	v := receiptView{BrandName: str(), CreatedAt: r.Int64N(1 << 40), Currency: str(), JurisdictionCode: ptr(),
		MerchantWallet: str(), ProcessingFeeUSD: num(), ReceiptID: str(), Status: str(), SubtotalUSD: num(),
		TaxRate: num(), TaxUSD: num(), TotalUSD: num(), TransactionID: ptr(),
		depositView: depositView{DepositAddress: ptr(), AmountRequired: ptr(), AmountReceived: ptr(), AmountToken: str(), PaidLate: r.IntN(2) == 0},
		RefundsPayload: readmodels.RefundsPayload{RefundedUSD: num(), RefundedBeforePaymentUSD: []float64{0, num()}[r.IntN(2)],
			ProcessorPaymentsToRefund: r.IntN(3)}}
	if r.IntN(4) > 0 {
		v.LineItems = []lineView{}
		for range r.IntN(4) {
			l := lineView{Label: str(), PriceUSD: num(), Thumb: str(), ItemID: str(), SKU: str()}
			if r.IntN(2) == 0 {
				q, u := r.Int64N(100)-50, num()
				l.Qty, l.UnitPriceUSD = &q, &u
			}
			v.LineItems = append(v.LineItems, l)
		}
	}
	if r.IntN(3) > 0 {
		v.Metadata = map[string]string{}
		for range r.IntN(4) {
			v.Metadata[str()] = str()
		}
	}
	if r.IntN(3) > 0 {
		v.TaxComponents = []string{}
		for range r.IntN(3) {
			v.TaxComponents = append(v.TaxComponents, str())
		}
	}
	if r.IntN(3) > 0 {
		v.Refunds = []readmodels.RefundPayload{}
		for range r.IntN(3) {
			v.Refunds = append(v.Refunds, readmodels.RefundPayload{AmountUSD: num(), Token: ptr(), Amount: ptr(), To: ptr(),
				TransactionHash: ptr(), State: str(), Reason: str(), Proof: ptr()})
		}
	}
	return v
}

// answerWith records what answer writes for an order request.
func answerWith(t *testing.T, target string, answer func(echo.Context) error) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, target, nil), rec)
	if err := answer(c); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestReceiptJSONAsEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(38, 3))
	for range 3000 {
		v := randomView(r)
		for _, target := range []string{"/api/orders", "/api/orders?pretty"} {
			want := answerWith(t, target, func(c echo.Context) error {
				return c.JSON(http.StatusCreated, map[string]any{"ok": true, "receipt": v})
			})
			got := answerWith(t, target, func(c echo.Context) error { return answerIssued(c, http.StatusCreated, v) })
			if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) ||
				got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Fatalf("%s: wrote %d %q %s\nencoding/json: %d %q %s", target, got.Code, got.Header().Get("Content-Type"), got.Body,
					want.Code, want.Header().Get("Content-Type"), want.Body)
			}
		}
	}
}

// A number encoding/json refuses is refused as before (c.JSON's error), not written.
func TestReceiptJSONRefusesNonFiniteAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		v := receiptView{TotalUSD: f}
		c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/api/orders", nil), httptest.NewRecorder())
		var unsupported *json.UnsupportedValueError
		if err := answerIssued(c, http.StatusOK, v); !errors.As(err, &unsupported) {
			t.Fatalf("total %v: %v, want encoding/json's UnsupportedValueError", f, err)
		}
	}
}

// A stored rate reads as the float64 money.ParseRate gave, whatever the rate.
func TestRateFloatAsParseRate(t *testing.T) {
	t.Parallel()
	rates := []string{"", "0", "0.0725", "0.07250", "-0.5", "1", "12.345678901234567890123", ".5", "5.", "0.1", "0.3",
		"1e-3", "3/4", " 0.1", "abc", "-", ".", "1.2.3", "0.000000000000000000001", "99999999999999999999999999"}
	for i := range 200 {
		rates = append(rates, strconv.FormatFloat(float64(i)*0.00125, 'f', -1, 64), "0."+strconv.Itoa(i*7919))
	}
	for _, s := range rates {
		r, _ := money.ParseRate(orZero(s))
		if got, want := rateFloat(s), r.Float(); got != want {
			t.Errorf("rateFloat(%q) = %v, money.ParseRate: %v", s, got, want)
		}
	}
}
