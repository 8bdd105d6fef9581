package transport

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// Issue 38: the HTTP side of an order's CPU, before (three passes, c.JSON of a map) and after.
// go test -run '^$' -bench 'OrderBody|IssuedAnswer' -benchmem ./transport/

func BenchmarkOrderBodyThreePasses(b *testing.B) {
	body := []byte(quickBodies[0])
	b.ReportAllocs()
	for b.Loop() {
		var req orderRequest
		if err := decodeChecked(body, &req, true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOrderBodyOnePass(b *testing.B) {
	body := []byte(quickBodies[0])
	b.ReportAllocs()
	for b.Loop() {
		var req orderRequest
		if err := decodeBytes(body, &req); err != nil {
			b.Fatal(err)
		}
	}
}

// orderView is a receipt as an order of the load benchmark answers it.
func orderView() receiptView {
	q, u := int64(2), 4.5
	j := "US-CA"
	return receiptView{BrandName: "Shop", CreatedAt: 1800000000000, Currency: "USD", JurisdictionCode: &j,
		LineItems: []lineView{{Label: "Latte", PriceUSD: 9, UnitPriceUSD: &u, Qty: &q, Thumb: "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", SKU: "latte"},
			{Label: "Beans", PriceUSD: 14, UnitPriceUSD: &u, Qty: &q, SKU: "beans"}, {Label: "Mug", PriceUSD: 12, UnitPriceUSD: &u, Qty: &q, SKU: "mug"}},
		MerchantWallet: "0x1111111111111111111111111111111111111111", Metadata: map[string]string{}, ProcessingFeeUSD: 0.35,
		ReceiptID: "rcpt_0123456789abcdef0123", Status: "pending", SubtotalUSD: 35, TaxComponents: []string{"state", "county"},
		TaxRate: 0.0725, TaxUSD: 2.54, TotalUSD: 37.89, depositView: depositView{}}
}

func benchmarkAnswer(b *testing.B, answer func(echo.Context, receiptView) error) {
	e, v := echo.New(), orderView()
	req := httptest.NewRequest(http.MethodPost, "/api/orders", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		if err := answer(e.NewContext(req, rec), v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIssuedAnswerEncodingJSON(b *testing.B) {
	benchmarkAnswer(b, func(c echo.Context, v receiptView) error {
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "receipt": v})
	})
}

func BenchmarkIssuedAnswerByHand(b *testing.B) {
	benchmarkAnswer(b, func(c echo.Context, v receiptView) error { return answerIssued(c, http.StatusOK, v) })
}
