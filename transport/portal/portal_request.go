package portal

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/labstack/echo/v4"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
)

// paymentRequest is what a wallet must send to pay a receipt in one token (DESIGN 9): what is
// still due (the required amount less what confirmed transfers already cover), to the receipt's
// own deposit address (never the split, never an address two receipts share), on the configured
// chain, before the payment window ends, and the EIP-681 URI that says the same to a mobile
// wallet.
type paymentRequest struct {
	ReceiptID      string `json:"receiptId"`
	Token          string `json:"token"`
	Amount         string `json:"amount"`         // decimal, in token units: what is still due
	AmountUnits    string `json:"amountUnits"`    // integer, in base units: what is still due
	AmountRequired string `json:"amountRequired"` // decimal, in token units: the whole requirement
	Decimals       uint8  `json:"decimals"`
	Recipient      string `json:"recipient"`    // the receipt's deposit address
	TokenAddress   string `json:"tokenAddress"` // "" for ETH
	ChainID        int64  `json:"chainId"`
	URI            string `json:"uri"`
	ExpiresAt      int64  `json:"expiresAt"` // Unix ms: the end of the payment window (0: none)
}

// paymentRequestOf computes the request of row in token. The required amount is the deposit
// follower's (receipt.RequiredAmount): a stablecoin the receipt total (EUR through the latest
// recorded EUR/USD rate), any other token its latest recorded quote; the request asks for what
// the confirmed transfers leave of it (receipt.State.DueUnits, rounded up to the base unit), so
// that a customer who scans again after a partial payment sends the rest. Errors: 400
// invalid_input (no chain configured, a token the chain does not configure, no quote yet, a
// settled receipt), commands.ErrSplitRequired (the receipt has no deposit address: its merchant
// had no split), wrapped store errors.
func (s *handlers) paymentRequestOf(ctx context.Context, row readmodels.ReceiptRow, token string) (paymentRequest, error) {
	st := row.State
	if !slices.Contains(receipt.PaymentTokens(), token) {
		return paymentRequest{}, transport.InvalidInput("token must be one of " + strings.Join(receipt.PaymentTokens(), ", "))
	}
	tok, ok := s.cfg.PaymentChain.Token(token)
	if !ok {
		return paymentRequest{}, transport.InvalidInput("token " + token + " cannot be paid by wallet on this service's chain")
	}
	if err := receipt.CanStartAttempt(st); err != nil {
		return paymentRequest{}, err
	}
	if !common.IsHexAddress(st.Receipt.DepositAddress) {
		return paymentRequest{}, commands.ErrSplitRequired
	}
	req, err := s.requiredAmount(ctx, st, token)
	if err != nil {
		return paymentRequest{}, err
	}
	units := st.DueUnits(req, tok.Decimals)
	whole := receipt.State{}.DueUnits(req, tok.Decimals) // nothing received: the whole requirement
	recipient := common.HexToAddress(st.Receipt.DepositAddress).Hex()
	chainID := s.cfg.PaymentChain.ChainID
	var uri string
	if tok.Address == "" {
		uri = fmt.Sprintf("ethereum:%s@%d?value=%s", recipient, chainID, units)
	} else {
		uri = fmt.Sprintf("ethereum:%s@%d/transfer?address=%s&uint256=%s", tok.Address, chainID, recipient, units)
	}
	return paymentRequest{ReceiptID: st.Receipt.ReceiptID, Token: token, Amount: unitsString(units, tok.Decimals),
		AmountUnits: units.String(), AmountRequired: unitsString(whole, tok.Decimals), Decimals: tok.Decimals,
		Recipient: recipient, TokenAddress: tok.Address, ChainID: chainID, URI: uri, ExpiresAt: st.Receipt.ExpiresAt}, nil
}

// requiredAmount is what a payment of st in token must bring (receipt.State.RequiredIn: a
// quoted token at the latest quote the receipt's state keeps), its errors as API errors. For a
// quoted token the state is folded from the receipt's stream: the read model may not show yet a
// quote the customer has just been answered.
func (s *handlers) requiredAmount(ctx context.Context, st receipt.State, token string) (receipt.Required, error) {
	if !receipt.IsStable(token) {
		loaded, err := s.States.ReceiptState(ctx, st.Receipt.ReceiptID)
		if err != nil {
			return receipt.Required{}, err
		}
		st = loaded
	}
	req, err := st.RequiredIn(token)
	switch {
	case errors.Is(err, receipt.ErrNoEURRate):
		return req, transport.InvalidInput("the receipt is in EUR: quote it first (POST /api/portal/{id}/quote)")
	case errors.Is(err, receipt.ErrNoQuote):
		return req, transport.InvalidInput("no quote in " + token + " yet: quote it first (POST /api/portal/{id}/quote)")
	}
	return req, err
}

// unitsString renders base units as a decimal in token units without trailing zeros.
func unitsString(units *big.Int, decimals uint8) string {
	s := units.String()
	if decimals == 0 {
		return s
	}
	if len(s) <= int(decimals) {
		s = strings.Repeat("0", int(decimals)-len(s)+1) + s
	}
	whole, frac := s[:len(s)-int(decimals)], strings.TrimRight(s[len(s)-int(decimals):], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// portalRequest answers GET /api/portal/{id}/request?token=: the payment request as JSON.
func (s *handlers) portalRequest(c echo.Context) error {
	req, err := s.requestedPayment(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, req)
}

// requestedPayment is the payment request of the route's receipt ({id}) in its ?token=.
func (s *handlers) requestedPayment(c echo.Context) (paymentRequest, error) {
	row, err := s.anyReceipt(c, c.Param("id"))
	if err != nil {
		return paymentRequest{}, err
	}
	return s.paymentRequestOf(c.Request().Context(), row, c.QueryParam("token"))
}

// qrSize is the most the side of the QR PNG takes, in pixels.
const qrSize = 320

// qrPNG is text as a QR code PNG of at most qrSize pixels a side, each module a whole number of
// pixels: scaled to exactly qrSize, a version-8 code (57 modules with its quiet zone) had modules
// of 5 and 6 pixels, and about one payment URI in a hundred was not read by a decoder that reads
// the same code drawn at whole pixels.
func qrPNG(text string) ([]byte, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return nil, err
	}
	modules := 17 + 4*q.VersionNumber + 8 // the symbol and its 4-module quiet zone each side
	return q.PNG(-max(1, qrSize/modules)) // a negative size is pixels per module
}

// portalQR answers GET /api/portal/{id}/qr?token=: the EIP-681 URI of the payment request as a
// QR code PNG (unknown token: 400 invalid_input).
func (s *handlers) portalQR(c echo.Context) error {
	req, err := s.requestedPayment(c)
	if err != nil {
		return err
	}
	png, err := qrPNG(req.URI)
	if err != nil {
		return fmt.Errorf("qr of %s: %w", req.URI, err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().Header().Set("X-Payment-Uri", req.URI)
	return c.Blob(http.StatusOK, "image/png", png)
}
