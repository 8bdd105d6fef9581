package portal_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/payledger/payledger/transport/portal"
	"github.com/payledger/payledger/transport/transporttest"
)

// TestPortalRequestAsksForTheRest: while a receipt is underpaid, its payment request and QR code
// ask for what is still due, not the whole amount (a customer scanning again would pay twice); a
// transfer not yet confirmed reduces nothing, and a USDT part counts toward a USDC request.
func TestPortalRequestAsksForTheRest(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	id := e.ReceiptFor(e.Merchant(true), "12.34")
	request := func() portal.PaymentRequest {
		t.Helper()
		rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/request?token=USDC"})
		var r portal.PaymentRequest
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &r) != nil {
			t.Fatalf("request: %d %s", rec.Code, rec.Body)
		}
		return r
	}
	deposit := request().Recipient
	uriFor := func(units string) string {
		return fmt.Sprintf("ethereum:%s@1337/transfer?address=%s&uint256=%s", common.HexToAddress(transporttest.PortalUSDC).Hex(), deposit, units)
	}

	e.DepositCredit(id, "0x01", "USDT", "10000000", false) // seen, not yet deep enough
	if r := request(); r.Amount != "12.34" || r.AmountUnits != "12340000" || r.AmountRequired != "12.34" || r.URI != uriFor("12340000") {
		t.Fatalf("an unconfirmed transfer changed the request: %+v", r)
	}
	e.DepositCredit(id, "0x01", "USDT", "10000000", true)
	r := request()
	if r.Amount != "2.34" || r.AmountUnits != "2340000" || r.AmountRequired != "12.34" || r.URI != uriFor("2340000") {
		t.Fatalf("after 10 USDT of 12.34: %+v, want the rest 2.34", r)
	}
	rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/qr?token=USDC"})
	if rec.Code != 200 || rec.Header().Get("X-Payment-Uri") != r.URI || qrText(t, rec.Body.Bytes()) != r.URI {
		t.Fatalf("QR: %d %s, want %s", rec.Code, rec.Header().Get("X-Payment-Uri"), r.URI)
	}
	e.DepositCredit(id, "0x02", "USDC", "2000000", true)
	if r := request(); r.Amount != "0.34" || r.AmountUnits != "340000" || r.URI != uriFor("340000") {
		t.Fatalf("after 12 of 12.34: %+v, want the rest 0.34", r)
	}
}

// qrText is the text of a QR code PNG; a pure-barcode reading backs up the finder search, which
// misses a few valid codes.
func qrText(t *testing.T, b []byte) string {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		res, err = zxqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_PURE_BARCODE: true})
	}
	if err != nil {
		t.Fatalf("QR: %v", err)
	}
	return strings.TrimSpace(res.GetText())
}
