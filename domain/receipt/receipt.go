// Package receipt is the receipt aggregate: an order's itemized bill and its payment lifecycle.
//
// Rules (this part: generation; the payment flow adds the status guards):
//   - A receipt is generated once; generating an id that exists is ErrExists.
//   - Its total is the sum of its lines to the cent; every amount is integer cents.
//   - Canonical status is a pure function of the receipt's events: replaying them gives it.
package receipt

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/payledger/payledger/domain/money"
)

// Status is a receipt's canonical status (DESIGN.md section 5).
type Status string

// Statuses.
const (
	StatusGenerated       Status = "generated"
	StatusPending         Status = "pending"
	StatusPaid            Status = "paid"
	StatusACHPending      Status = "ach_pending"
	StatusReconciled      Status = "reconciled"
	StatusFailed          Status = "failed"
	StatusRefundRequested Status = "refund_requested"
	StatusRefunded        Status = "refunded"
)

// Line kinds.
const (
	KindItem   = "item"
	KindTax    = "tax"
	KindFee    = "fee"
	KindCustom = "custom"
)

// LineItem is one line of a receipt. Amount is the line's total (unit × qty for items).
type LineItem struct {
	Kind   string      `json:"kind"`
	Label  string      `json:"label"`
	Amount money.Cents `json:"amountCents"`
	Unit   money.Cents `json:"unitCents,omitempty"`
	Qty    int64       `json:"qty,omitempty"`
	Thumb  string      `json:"thumb,omitempty"`
	ItemID string      `json:"itemId,omitempty"`
	SKU    string      `json:"sku,omitempty"`
}

// Buyer holds optional buyer details from order creation.
type Buyer struct {
	Email        string `json:"email,omitempty"`
	FirstName    string `json:"firstName,omitempty"`
	LastName     string `json:"lastName,omitempty"`
	BillingEmail string `json:"billingEmail,omitempty"`
	Phone        string `json:"phone,omitempty"`
	AddressLine1 string `json:"addressLine1,omitempty"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	City         string `json:"city,omitempty"`
	State        string `json:"state,omitempty"`
	PostalCode   string `json:"postalCode,omitempty"`
	Country      string `json:"country,omitempty"`
}

// EventGenerated is the type name of Generated.
const EventGenerated = "ReceiptGenerated"

// Generated records a new receipt (version 1). It never holds secrets: the webhook signing key
// is stored encrypted elsewhere.
type Generated struct {
	ReceiptID         string            `json:"receiptId"`
	Merchant          string            `json:"merchantWallet"`
	Source            string            `json:"source"` // order | direct | terminal
	Currency          string            `json:"currency"`
	LineItems         []LineItem        `json:"lineItems"`
	Subtotal          money.Cents       `json:"subtotalCents"`
	Tax               money.Cents       `json:"taxCents"`
	Fee               money.Cents       `json:"feeCents"`
	PlatformFee       money.Cents       `json:"platformFeeCents"`
	MerchantFee       money.Cents       `json:"merchantFeeCents"`
	Total             money.Cents       `json:"totalCents"`
	JurisdictionCode  string            `json:"jurisdictionCode,omitempty"`
	TaxRate           string            `json:"taxRate"` // exact decimal
	TaxComponents     []string          `json:"taxComponents"`
	FeeRate           string            `json:"feeRate"` // exact decimal
	BrandName         string            `json:"brandName"`
	TransactionID     string            `json:"transactionId,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
	Buyer             Buyer             `json:"buyer"`
	RedirectURL       string            `json:"redirectUrl,omitempty"`
	SuccessURL        string            `json:"successUrl,omitempty"`
	PostPaymentAction string            `json:"postPaymentAction,omitempty"`
	WebhookURL        string            `json:"webhookUrl,omitempty"`
	RequestHash       string            `json:"requestHash,omitempty"` // idempotency: hash of the creating request
	CreatedAt         int64             `json:"createdAt"`             // Unix ms
}

// Event is a decoded receipt event.
type Event interface{ eventType() string }

func (Generated) eventType() string { return EventGenerated }

// Decode turns a stored event into its domain type; unknown types are ErrUnknownEvent.
func Decode(typ string, data []byte) (Event, error) {
	switch typ {
	case EventGenerated:
		var e Generated
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, fmt.Errorf("decode %s: %w", typ, err)
		}
		return e, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownEvent, typ)
}

// Errors.
var (
	ErrExists       = errors.New("receipt already exists")
	ErrUnknownEvent = errors.New("unknown receipt event")
	ErrTotal        = errors.New("total does not equal the sum of the line items")
)

// State is a receipt as its events say.
type State struct {
	Exists         bool
	Receipt        Generated
	Status         Status
	PreviousStatus Status
	UpdatedAt      int64
}

// Evolve applies one event; it is the only place state changes.
func Evolve(s State, e Event) State {
	switch e := e.(type) {
	case Generated:
		if s.Exists {
			return s
		}
		s.Exists, s.Receipt, s.Status, s.UpdatedAt = true, e, StatusGenerated, e.CreatedAt
	}
	return s
}

// Generate decides the generation of a receipt. Errors: ErrExists, ErrTotal.
func Generate(s State, g Generated, now time.Time) ([]Event, error) {
	if s.Exists {
		return nil, ErrExists
	}
	var sum money.Cents
	for _, l := range g.LineItems {
		sum += l.Amount
	}
	if sum != g.Total {
		return nil, fmt.Errorf("%w: lines add up to %s, total is %s", ErrTotal, sum, g.Total)
	}
	g.CreatedAt = now.UnixMilli()
	return []Event{g}, nil
}
