package transport

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// The payment page's test service, shared by the API's tests of the routes the page calls
// (payments, quotes); the page's own tests are transport/portal's.

const portalUSDC = "0x00000000000000000000000000000000000a11ce"

func portalEnv(t *testing.T) *env {
	return newAppEnv(t, withDeposits, func(d *testDeps) {
		d.Config.PaymentChain = PaymentChain{ChainID: 1337, Tokens: []PaymentToken{{Symbol: "USDC", Address: portalUSDC, Decimals: 6}}}
	}, nil)
}

// portalFactory is the deposit factory of the tests' receipts (nothing is deployed: the deposit
// address is computed off-chain).
var portalFactory = common.HexToAddress("0x" + strings.Repeat("f", 40))

// withDeposits gives new receipts a deposit address (under portalFactory) and a payment window
// of one hour.
func withDeposits(c *app.Config) {
	c.Deposits = chain.DepositAddresses{Factory: portalFactory}
	c.PaymentWindow = time.Hour
}

// depositCredit records a transfer of units of token to receipt id's deposit address, seen (and
// confirmed when confirmed), as the deposit detector does, and waits until the read model has it.
func (e *env) depositCredit(id, tx, token, units string, confirmed bool) {
	e.t.Helper()
	seen := receipt.DepositTransferSeen{TransactionHash: tx, LogIndex: 0, BlockNumber: 7, BlockHash: "0xb7", Sender: "0xbuyer",
		Token: token, AmountUnits: units, Decimals: 6, At: e.clk.Now().UnixMilli()}
	ctx := context.Background()
	_, res, err := commands.ChangeReceipt(ctx, e.svc.Events, id, eventstore.Metadata{Actor: "test"}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: seen, Confirmed: confirmed, At: seen.At})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, id, res); err != nil {
		e.t.Fatal(err)
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

// paymentRequest is GET /api/portal/{id}/request's answer (transport/portal).
type paymentRequest struct {
	ReceiptID      string `json:"receiptId"`
	Token          string `json:"token"`
	Amount         string `json:"amount"`
	AmountUnits    string `json:"amountUnits"`
	AmountRequired string `json:"amountRequired"`
	Decimals       uint8  `json:"decimals"`
	Recipient      string `json:"recipient"`
	TokenAddress   string `json:"tokenAddress"`
	ChainID        int64  `json:"chainId"`
	URI            string `json:"uri"`
	ExpiresAt      int64  `json:"expiresAt"`
}
