// Package receipt is the receipt aggregate: an order's itemized bill and its payment lifecycle.
//
// Rules:
//   - A receipt is generated once; generating an id that exists is ErrExists.
//   - Its total is the sum of its lines to the cent, and more than 0; every amount is integer cents.
//   - Canonical status is a pure function of the receipt's events: Evolve is the only place state
//     changes, so replaying the events always gives the live status.
//   - Every payment attempt (onramp session, wallet transaction, terminal) has an attempt id; the
//     newest started attempt is the current one, except that an earlier onramp session whose
//     payment the processor reports under way is the current one again (window_resume.go). A new
//     attempt may start from generated, pending or failed (the customer retries).
//   - Telemetry (link_opened, checkout_initialized, onramp_*, error, checkout_success, closing the
//     form) is recorded but never changes status and never fails a receipt. checkout_success
//     leads to paid only through server verification.
//   - paid needs a verified source: the processor's signed event or API, the chain verifier, or
//     the merchant's attestation (terminal). A verified success wins from generated, pending,
//     ach_pending and failed, whichever attempt it belongs to.
//   - A failure applies only to a generated or pending receipt whose current attempt is the
//     failure's attempt. Any other failure (late, duplicate, or for another attempt) never
//     replaces ach_pending, paid, reconciled, refund_requested or refunded: it is recorded as
//     FailureIgnored with the reason, for auditors, and changes nothing.
//   - reconciled follows paid (split distributed). Refunds start from paid or reconciled, never
//     exceed what is unrefunded, and the receipt is refunded once the whole total is back; a
//     refund of a receipt paid on chain counts only once the chain shows it (refund.go).
//   - A paid receipt whose paying transaction a reorg past the confirmation depth took off the
//     chain stays paid but is flagged (FailureIgnored, CodeChainWithdrawn): it is not reconciled
//     (ErrWithdrawn) until the chain confirms the same transaction again (PaymentRestored).
//   - Failure fields are shown only while the status is failed (FailureView).
//   - Payment window (window.go): a receipt not paid when its window (Generated.ExpiresAt) ends,
//     with no onramp attempt open, becomes failed with PORTAL_SESSION_EXPIRED
//     (PaymentWindowExpired). Only confirmed funds on chain move an expired receipt out of
//     failed: a chain confirmation within PAYMENT_MONITOR_WINDOW after expiry pays it with
//     PaidLate. No processor event, telemetry, hint, new attempt or merchant attestation does.
//     (Within the window a failed attempt may still be retried, as above.)
package receipt

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/money"
)

// StreamPrefix starts the event-stream id of every receipt: "receipt-<receiptId>".
const StreamPrefix = "receipt-"

// Stream is the event stream of receipt id.
func Stream(id string) string { return StreamPrefix + id }

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
	BrandKey          string            `json:"brandKey,omitempty"`     // partner brand of the merchant at creation
	DefaultToken      string            `json:"defaultToken,omitempty"` // the site's default payment token at creation
	TransactionID     string            `json:"transactionId,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
	Buyer             Buyer             `json:"buyer"`
	RedirectURL       string            `json:"redirectUrl,omitempty"`
	SuccessURL        string            `json:"successUrl,omitempty"`
	PostPaymentAction string            `json:"postPaymentAction,omitempty"`
	WebhookURL        string            `json:"webhookUrl,omitempty"`
	RequestHash       string            `json:"requestHash,omitempty"` // idempotency: hash of the creating request
	CreatedAt         int64             `json:"createdAt"`             // Unix ms
	// DepositAddress is where the receipt is paid (DESIGN 9): the CREATE2 address of the deposit
	// of (receipt, DepositSplit) under the chain's deposit factory, EIP-55; "" when the merchant
	// had no split or no factory was known at generation.
	DepositAddress string `json:"depositAddress,omitempty"`
	DepositSplit   string `json:"depositSplit,omitempty"` // the split the deposit sweeps to
	ExpiresAt      int64  `json:"expiresAt,omitempty"`    // Unix ms: creation + PAYMENT_WINDOW
}

// Event is a decoded receipt event.
type Event interface{ eventType() string }

func (Generated) eventType() string { return EventGenerated }

// Errors.
var (
	ErrExists       = errors.New("receipt already exists")
	ErrNotFound     = errors.New("receipt not found")
	ErrUnknownEvent = errors.New("unknown receipt event")
	ErrTotal        = errors.New("total does not equal the sum of the line items")
	ErrState        = errors.New("not allowed in the receipt's current status")
	ErrAmount       = errors.New("invalid amount")
	// ErrWithdrawn is an ErrState: the chain no longer shows the paying transaction.
	ErrWithdrawn = fmt.Errorf("%w: the paying transaction is no longer on the chain (reorg past the confirmation depth)", ErrState)
)

// CodeChainWithdrawn marks, in a FailureIgnored of a paid receipt, that a reorg past the
// confirmation depth took the paying transaction off the chain. It is not a failure code of the
// catalog: it never changes a status and is never shown as a failure; it flags the receipt
// (State.ChainWithdrawnTx) until PaymentRestored.
const CodeChainWithdrawn = "PORTAL_CHAIN_TX_REORGED"

// Attempt is one payment attempt.
type Attempt struct {
	ID              string `json:"id"`
	Kind            string `json:"kind"` // onramp | wallet | terminal
	SessionID       string `json:"sessionId,omitempty"`
	SessionUnique   bool   `json:"sessionUnique,omitempty"`
	OpenedBy        string `json:"openedBy,omitempty"` // processor: a session the service did not start; else the service's
	StartedAt       int64  `json:"startedAt"`
	Token           string `json:"token,omitempty"`
	TransactionHash string `json:"transactionHash,omitempty"`
	BuyerWallet     string `json:"buyerWallet,omitempty"`
}

// Payment is the verified payment of a receipt.
type Payment struct {
	AttemptID       string       `json:"attemptId"`
	TransactionHash string       `json:"transactionHash,omitempty"`
	BuyerWallet     string       `json:"buyerWallet,omitempty"`
	Token           string       `json:"token,omitempty"`
	SourceAmount    *money.Cents `json:"sourceAmountCents,omitempty"`
	VerifiedBy      string       `json:"verifiedBy"`
	Method          string       `json:"method,omitempty"`
	// The block the chain verifier saw it in (verifiedBy chain; after PaymentRestored, the new
	// one): what the post-depth audit watches, also after a restart.
	BlockNumber uint64 `json:"blockNumber,omitempty"`
	BlockHash   string `json:"blockHash,omitempty"`
	PaidLate    bool   `json:"paidLate,omitempty"` // paid after the payment window failed the receipt
	At          int64  `json:"at"`
}

// Failure is the last applied failure of a receipt: the PaymentFailed event as applied.
type Failure PaymentFailed

// State is a receipt as its events say. It is also what the receipts read model stores.
type State struct {
	Exists         bool               `json:"exists"`
	Receipt        Generated          `json:"receipt"`
	Status         Status             `json:"status"`
	PreviousStatus Status             `json:"previousStatus,omitempty"`
	UpdatedAt      int64              `json:"updatedAt"`
	Attempts       map[string]Attempt `json:"attempts,omitempty"`
	CurrentAttempt string             `json:"currentAttempt,omitempty"`
	Payment        *Payment           `json:"payment,omitempty"`
	Failure        *Failure           `json:"failure,omitempty"` // kept internally after recovery
	RefundedCents  money.Cents        `json:"refundedCents"`
	RequestedCents money.Cents        `json:"requestedRefundCents"`
	SettledStatus  Status             `json:"settledStatus,omitempty"` // paid or reconciled: where partial refunds return
	SplitTxHash    string             `json:"splitTransactionHash,omitempty"`
	SplitAt        int64              `json:"splitDistributedAt,omitempty"`
	RefundTxHashes []string           `json:"refundTransactionHashes,omitempty"`
	QuotedToken    string             `json:"quotedToken,omitempty"` // the latest quote's token
	EURUSDRate     string             `json:"eurUsdRate,omitempty"`  // the latest recorded EUR/USD rate (EUR receipts)
	// ChainWithdrawnTx is the paying transaction while a reorg past the confirmation depth has
	// taken it off the chain (flagged, CodeChainWithdrawn) and it was not seen again at depth.
	ChainWithdrawnTx string `json:"chainWithdrawnTx,omitempty"`
	windowState             // the payment window (window.go)
	refundState             // refunds with a transaction hash (refund.go)
	limitState              // what the page's public routes may still append (limits.go)
	// Credits are the transfers to the deposit address, in the order first seen (deposit.go).
	Credits []Credit `json:"credits,omitempty"`
	// Quotes is the latest quote's amount per token (TokenQuoted), what a quoted token must bring.
	Quotes map[string]string `json:"quotes,omitempty"`
	// Sweeps are what sweeps moved from the deposit address to the split (swept.go).
	Sweeps []Sweep `json:"sweeps,omitempty"`
	// DepositChainGone is set when the deposit address's chain is gone (chain_gone.go).
	DepositChainGone  *DepositChainGone `json:"depositChainGone,omitempty"`
	unknownTokenState                   // transfers of tokens not configured (deposit_unknown.go)
}

// FailureView is the failure to show: only while the status is failed (spec rule 5).
func (s State) FailureView() *Failure {
	if s.Status != StatusFailed {
		return nil
	}
	return s.Failure
}

// Current returns the current attempt, if any.
func (s State) Current() (Attempt, bool) {
	a, ok := s.Attempts[s.CurrentAttempt]
	return a, ok && s.CurrentAttempt != ""
}

func (s *State) setStatus(st Status, at int64) {
	if s.Status != st {
		s.PreviousStatus, s.Status = s.Status, st
	}
	s.UpdatedAt = at
}

// withQuote records the latest quote of token (upper case).
func (s *State) withQuote(token, amount string) {
	s.Quotes = withEntry(s.Quotes, strings.ToUpper(token), amount)
}

func (s *State) withAttempt(a Attempt) { s.Attempts = withEntry(s.Attempts, a.ID, a) }

// withEntry returns a copy of m with k set to v. A state shares its maps with the states it was
// evolved from (State is a value), so a change is made to a copy, never in place.
func withEntry[K comparable, V any](m map[K]V, k K, v V) map[K]V {
	out := make(map[K]V, len(m)+1)
	maps.Copy(out, m)
	out[k] = v
	return out
}

// Evolve applies one event; it is the only place state changes. Each concern's cases live in
// its file: payment.go (attempts, verification, quotes, settlement and refunds), window.go,
// deposit.go and swept.go.
func Evolve(s State, e Event) State {
	switch e := e.(type) {
	case Generated:
		if s.Exists {
			return s
		}
		s.Exists, s.Receipt, s.Status, s.UpdatedAt = true, e, StatusGenerated, e.CreatedAt
	case PaymentSubmitted:
		s.evolvePayment(e)
		s.resumed(e) // an earlier session's payment under way (window_resume.go)
	case PaymentFailed:
		s.evolvePayment(e)
		s.attemptFailed(e.AttemptID, e.Code) // window_resume.go
	case AttemptStarted, ACHAccepted, PaymentConfirmed, TokenQuoted:
		s.evolvePayment(e)
	case FailureIgnored:
		s.evolveWithdrawal(e)
		s.attemptFailed(e.AttemptID, e.Code)
	case PaymentRestored:
		s.evolveWithdrawal(e)
	case SplitDistributed:
		s.evolveSettlement(e)
	case RefundRequested, RefundProcessed, RefundRefused, RefundReverted:
		s.evolveRefund(e)
	case PaymentWindowExpired, PaymentIgnored:
		s.evolveWindow(e)
	case TelemetryRecorded:
		// Recorded for auditors; never a change of state.
	case DepositTransferSeen, DepositTransferConfirmed, DepositTransferDropped:
		s.evolveDeposit(e)
	case DepositSwept:
		s.evolveSwept(e)
	case DepositChainGone:
		s.DepositChainGone = &e
	case DepositUnknownToken:
		s.unknownTokenSeen(e)
	}
	return s
}

// Generate decides the generation of a receipt. Errors: ErrExists, ErrTotal, ErrAmount (a total
// that is not more than 0: nothing could pay it, the window would only fail it).
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
	if g.Total <= 0 {
		return nil, fmt.Errorf("%w: the receipt's total is %s; a receipt must ask for more than 0", ErrAmount, g.Total)
	}
	g.CreatedAt = now.UnixMilli()
	return []Event{g}, nil
}

// TransactionHash is the on-chain hash to report: the verified payment's, except while failed;
// before a payment, the first transfer seen at the deposit address (not dropped).
func (s State) TransactionHash() string {
	if s.Status == StatusFailed {
		return ""
	}
	if s.Payment == nil {
		if c, ok := s.FirstCredit(); ok {
			return c.TransactionHash
		}
		return ""
	}
	return s.Payment.TransactionHash
}

// IdempotencyKey is the webhook notification key of the receipt's current state:
// receipt-status:<receiptId>:<status>:<transactionHash or empty>.
func (s State) IdempotencyKey() string {
	return "receipt-status:" + s.Receipt.ReceiptID + ":" + string(s.Status) + ":" + s.TransactionHash()
}
