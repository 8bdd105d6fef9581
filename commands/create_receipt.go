package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/text"
)

// CreateReceipt is a receipt of custom lines that the merchant prices itself (POST
// /api/receipts): no inventory, no tax.
type CreateReceipt struct {
	Merchant string
	ID       string // optional: the merchant's own receipt id
	Lines    *[]ReceiptLine
	TotalUSD *json.Number
	Currency string // USD (default) or EUR
	Details  receipt.Generated
	Issue    Issue
}

// ReceiptLine is one custom line.
type ReceiptLine struct {
	Label    string
	PriceUSD *json.Number
}

// CreateReceiptHandler creates direct receipts.
type CreateReceiptHandler struct {
	pricing PricingSource
	issuer  *Issuer
}

// NewCreateReceiptHandler returns the handler. It panics on a nil dependency.
func NewCreateReceiptHandler(pricing PricingSource, issuer *Issuer) *CreateReceiptHandler {
	if pricing == nil || issuer == nil {
		panic("commands.NewCreateReceiptHandler: nil dependency")
	}
	return &CreateReceiptHandler{pricing: pricing, issuer: issuer}
}

// Handle checks the lines and the total, brands the receipt and issues it. Errors: Invalid, the
// Issuer's.
func (h *CreateReceiptHandler) Handle(ctx context.Context, cmd CreateReceipt) (Issued, error) {
	storedID, err := h.storedID(ctx, cmd.Merchant, cmd.ID)
	if err != nil {
		return Issued{}, err
	}
	if err := h.takenUnderAnotherKey(ctx, cmd.Merchant, storedID, cmd.Issue); err != nil {
		return Issued{}, err
	}
	currency := strings.ToUpper(strings.TrimSpace(cmd.Currency))
	if currency == "" {
		currency = "USD"
	}
	if currency != "USD" && currency != "EUR" {
		return Issued{}, Invalid("currency must be USD or EUR")
	}
	if cmd.Lines == nil || len(*cmd.Lines) == 0 || len(*cmd.Lines) > 500 {
		return Issued{}, Invalid("lineItems must hold between 1 and 500 lines of {label, priceUsd}")
	}
	g := cmd.Details
	g.ReceiptID, g.Merchant, g.Source, g.Currency, g.TaxRate, g.TaxComponents = "", cmd.Merchant, "direct", currency, "0", []string{}
	g.ReceiptID = storedID
	g.LineItems, g.Subtotal = nil, 0
	for i, l := range *cmd.Lines {
		if strings.TrimSpace(l.Label) == "" || utf8.RuneCountInString(l.Label) > 200 { // characters, as the message says
			return Issued{}, Invalidf("lineItems[%d].label is required (up to 200 characters)", i)
		}
		if strings.IndexFunc(l.Label, text.Reorders) >= 0 { // the line the customer pays, as the terminal's
			return Issued{}, Invalidf("lineItems[%d].label must not contain control characters", i)
		}
		if l.PriceUSD == nil {
			return Issued{}, Invalidf("lineItems[%d].priceUsd is required", i)
		}
		amt, err := money.ParseCents(l.PriceUSD.String())
		if err != nil {
			return Issued{}, Invalidf("lineItems[%d].priceUsd must be a number >= 0 with at most 2 decimals", i)
		}
		g.LineItems = append(g.LineItems, receipt.LineItem{Kind: receipt.KindCustom, Label: l.Label, Amount: amt})
		g.Subtotal += amt
	}
	if cmd.TotalUSD == nil {
		return Issued{}, Invalid("totalUsd is required")
	}
	total, err := money.ParseCents(cmd.TotalUSD.String())
	if err != nil || total != g.Subtotal {
		return Issued{}, Invalid(fmt.Sprintf("totalUsd must equal the sum of the line items (%s)", g.Subtotal))
	}
	g.Total = total
	mp, err := h.pricing.Pricing(ctx, cmd.Merchant)
	if err != nil {
		return Issued{}, err
	}
	g.BrandName, g.BrandKey, g.DefaultToken = mp.BrandName, mp.BrandKey, mp.DefaultToken
	return h.issuer.Issue(ctx, g, cmd.Issue)
}

// takenUnderAnotherKey refuses (ErrReceiptExists) a chosen id the merchant already has when the
// request's Idempotency-Key is free: only the key that made the receipt replays it (DESIGN 10,
// Receipt ids). The issuer cannot tell them apart, as both keys name the same id and request
// hash: a reused invoice number under a new key was answered 201 with the existing receipt (paid
// by another customer, perhaps), and the new key stayed bound to it. A key bound already (this
// request's retry, or another request's key) is left to the issuer: its replay or its conflict.
// Errors: ErrReceiptExists, the stores'.
func (h *CreateReceiptHandler) takenUnderAnotherKey(ctx context.Context, merchant, storedID string, how Issue) error {
	if storedID == "" || how.IdempotencyKey == "" {
		return nil // a generated id is new; without a key the issuer's append answers 409
	}
	if _, id, err := h.issuer.claims.Bound(ctx, merchant, how.IdempotencyKey); err != nil || id != "" {
		return err
	}
	loaded, err := LoadReceipt(ctx, h.issuer.store, storedID)
	if err != nil {
		return fmt.Errorf("read receipt %s: %w", storedID, err)
	}
	if loaded.State.Exists {
		return ErrReceiptExists
	}
	return nil
}
