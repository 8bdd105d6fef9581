package receipt

import (
	"encoding/json"
	"fmt"
)

// Event type names.
const (
	EventAttemptStarted   = "PaymentAttemptStarted"
	EventTelemetry        = "CheckoutTelemetryRecorded"
	EventSubmitted        = "PaymentSubmitted"
	EventACHAccepted      = "ACHPaymentAccepted"
	EventConfirmed        = "PaymentConfirmed"
	EventFailed           = "PaymentFailed"
	EventFailureIgnored   = "PaymentFailureIgnored"
	EventSplitDistributed = "SplitDistributed"
	EventRefundRequested  = "RefundRequested"
	EventRefundProcessed  = "RefundProcessed"
	EventTokenQuoted      = "TokenQuoted"
	EventPaymentRestored  = "PaymentRestored"
)

// TokenQuoted records a price quote in a token and the rates it used. Status unchanged.
type TokenQuoted struct {
	Token         string `json:"token"`
	Amount        string `json:"amount"` // exact decimal, 8 places
	TokenUSDPrice string `json:"tokenUsdPrice"`
	EURUSDRate    string `json:"eurUsdRate,omitempty"`
	AmountUSD     string `json:"amountUsd"`
	ValidUntil    int64  `json:"validUntil,omitempty"` // held until the payment window ends (Unix ms; window_quote.go)
	At            int64  `json:"at"`
}

// AttemptStarted opens a payment attempt; it becomes the current one.
type AttemptStarted struct {
	AttemptID     string `json:"attemptId"`
	Kind          string `json:"kind"` // onramp | wallet | terminal
	SessionID     string `json:"processorSessionId,omitempty"`
	SessionUnique bool   `json:"isProcessorSessionUnique,omitempty"`
	OpenedBy      string `json:"openedBy,omitempty"` // service | processor (a session the service did not start)
	// AskedUSDCents is what the service asked the processor's session for (its amountUsd, USD
	// cents: OnrampDue at the start); 0 when unknown (a session the service did not start, or an
	// attempt recorded before stop 68). A success without an amount is judged against it
	// (confirmProcessor).
	AskedUSDCents int64 `json:"askedUsdCents,omitempty"`
	At            int64 `json:"at"`
}

// TelemetryRecorded is a browser report from checkout: it never changes status.
type TelemetryRecorded struct {
	Event     string `json:"event"`
	AttemptID string `json:"attemptId,omitempty"`
	Code      string `json:"code,omitempty"` // a failure-catalog code the page showed (wallet errors)
	At        int64  `json:"at"`
}

// PaymentSubmitted: a payment is under way (wallet transaction submitted, or the processor
// fulfilling). Status pending.
type PaymentSubmitted struct {
	AttemptID       string `json:"attemptId"`
	Source          string `json:"source"` // wallet | processor
	Token           string `json:"token,omitempty"`
	TransactionHash string `json:"transactionHash,omitempty"`
	BuyerWallet     string `json:"buyerWallet,omitempty"`
	At              int64  `json:"at"`
}

// ACHAccepted: an ACH payment was accepted and settlement is pending.
type ACHAccepted struct {
	AttemptID string `json:"attemptId"`
	At        int64  `json:"at"`
}

// PaymentConfirmed: a verified payment. Status paid.
type PaymentConfirmed struct {
	AttemptID         string `json:"attemptId"`
	TransactionHash   string `json:"transactionHash,omitempty"`
	BuyerWallet       string `json:"buyerWallet,omitempty"`
	Token             string `json:"token,omitempty"`
	SourceAmountCents *int64 `json:"processorSourceAmountCents,omitempty"`
	VerifiedBy        string `json:"verifiedBy"` // processor | chain | merchant
	Method            string `json:"method,omitempty"`
	// Where the chain verifier saw the payment (verifiedBy chain only): the block, the first
	// counted Transfer log (absent for ETH, which has none), and what reached the split in the
	// token's base units (a decimal integer).
	BlockNumber uint64 `json:"blockNumber,omitempty"`
	BlockHash   string `json:"blockHash,omitempty"`
	LogIndex    *int   `json:"logIndex,omitempty"`
	AmountUnits string `json:"amountUnits,omitempty"`
	// PaidLate: the payment arrived after the payment window had failed the receipt (DESIGN 9).
	PaidLate bool `json:"paidLate,omitempty"`
	// BlockTime is the paying block's timestamp (Unix ms; verifiedBy chain, when the node gave
	// it): a late payment counts by it (within monitorUntil), not by At.
	BlockTime int64 `json:"blockTime,omitempty"`
	At        int64 `json:"at"`
}

// chainTime is when the chain shows the payment happened: its block's time when known, else
// when the service recorded it.
func (e PaymentConfirmed) chainTime() int64 {
	if e.BlockTime > 0 {
		return e.BlockTime
	}
	return e.At
}

// PaymentFailed: a server-verified failure of the current attempt. Status failed.
type PaymentFailed struct {
	AttemptID         string `json:"attemptId"`
	Code              string `json:"failureCode"`
	Category          string `json:"failureCategory"`
	Reason            string `json:"failureReason"`
	Action            string `json:"failureAction"`
	ProviderErrorCode string `json:"providerErrorCode,omitempty"`
	ProviderRequestID string `json:"providerRequestId,omitempty"`
	At                int64  `json:"at"`
}

// FailureIgnored records why a failure was not applied (late, duplicate, another attempt).
type FailureIgnored struct {
	AttemptID         string `json:"attemptId"`
	Code              string `json:"failureCode"`
	ProviderErrorCode string `json:"providerErrorCode,omitempty"`
	Why               string `json:"why"`
	StatusAtArrival   Status `json:"statusAtArrival"`
	At                int64  `json:"at"`
}

// PaymentRestored: the chain shows again, at its confirmation depth, the transaction whose
// withdrawal a deep reorg had flagged (a FailureIgnored with CodeChainWithdrawn): the flag is
// lifted and the receipt may be reconciled. Status unchanged.
type PaymentRestored struct {
	AttemptID       string `json:"attemptId"`
	TransactionHash string `json:"transactionHash"`
	BlockNumber     uint64 `json:"blockNumber,omitempty"`
	BlockHash       string `json:"blockHash,omitempty"`
	At              int64  `json:"at"`
}

// SplitDistributed: funds verified and the split executed. Status reconciled. TransactionHash is
// the first of TransactionHashes (the releases that paid the receipt's payees; one release may
// cover several receipts, which then record the same hashes); Amounts is what each release paid
// its payee, in the token's base units.
type SplitDistributed struct {
	TransactionHash   string        `json:"transactionHash,omitempty"`
	TransactionHashes []string      `json:"transactionHashes,omitempty"`
	Token             string        `json:"token,omitempty"` // symbol, as paid
	Amounts           []SplitAmount `json:"amounts,omitempty"`
	At                int64         `json:"at"`
}

// SplitAmount is what one release paid one recipient, in base units (a decimal integer).
type SplitAmount struct {
	Recipient       string `json:"recipient"`
	Amount          string `json:"amount"`
	TransactionHash string `json:"transactionHash,omitempty"` // empty: nothing was due to this recipient
}

// RefundRequested: a refund was asked for and is not yet sent; with TransactionHash, a claim
// that the refund was sent, to be verified on chain (refund.go).
type RefundRequested struct {
	AmountCents     int64  `json:"amountCents"`
	Reason          string `json:"reason"`
	RequestedBy     string `json:"requestedBy"`
	TransactionHash string `json:"transactionHash,omitempty"`
	RefundTo        string `json:"refundTo,omitempty"`
	CoversCents     int64  `json:"coversCents,omitempty"` // the open hashless requests the claim takes over
	// Unknown: the claim refunds this unconfigured token's transfer (refund_unknown.go); AmountCents is 0.
	Unknown  *UnknownTransferRef `json:"unknownTransfer,omitempty"`
	OfExcess bool                `json:"ofExcess,omitempty"` // the claim returns what the customer sent beyond the total (refund_excess.go, stop 70)
	At       int64               `json:"at"`
}

// RefundProcessed: a refund was sent (with its transaction hash when known). Proof chain: the
// refund verifier read, at depth, the transfer of AmountUnits of Token to Recipient in the block;
// proof merchant (or none, before proofs were named): the merchant's word.
type RefundProcessed struct {
	AmountCents     int64  `json:"amountCents"`
	Reason          string `json:"reason"`
	TransactionHash string `json:"transactionHash,omitempty"`
	ProcessedBy     string `json:"processedBy"`
	Proof           string `json:"proof,omitempty"`
	Token           string `json:"token,omitempty"`
	AmountUnits     string `json:"amountUnits,omitempty"`
	Decimals        uint8  `json:"decimals,omitempty"`
	Recipient       string `json:"recipient,omitempty"`
	BlockNumber     uint64 `json:"blockNumber,omitempty"`
	BlockHash       string `json:"blockHash,omitempty"`
	// Sender: proof chain, where the refund came from (its first transfer back's sender; stop
	// 68): shown to the merchant and the customer, not checked beyond refund_back.go's rules.
	Sender string `json:"sender,omitempty"`
	// Parts: a refund sent in several stable tokens (Token "USDC+USDT", AmountUnits their net sum
	// at Decimals, the largest of theirs): what each brought; absent for one token (stop 67).
	Parts []RefundPart `json:"parts,omitempty"`
	// OfProcessor: the merchant returned a card or bank payment the processor collected and the
	// receipt does not count (processorPaymentsToRefund), on its word, apart from the order's
	// refunds (refund_processor.go, stop 71); absent for every other refund.
	OfProcessor bool  `json:"ofProcessor,omitempty"`
	At          int64 `json:"at"`
}

// RefundPart is what one token of a refund sent in several stable tokens brought back, net.
type RefundPart struct {
	Token       string `json:"token"`
	AmountUnits string `json:"amountUnits"`
	Decimals    uint8  `json:"decimals"`
	Recipient   string `json:"recipient"`
	Sender      string `json:"sender,omitempty"` // its first transfer back's sender (stop 68)
}

func (AttemptStarted) eventType() string    { return EventAttemptStarted }
func (TelemetryRecorded) eventType() string { return EventTelemetry }
func (PaymentSubmitted) eventType() string  { return EventSubmitted }
func (ACHAccepted) eventType() string       { return EventACHAccepted }
func (PaymentConfirmed) eventType() string  { return EventConfirmed }
func (PaymentFailed) eventType() string     { return EventFailed }
func (FailureIgnored) eventType() string    { return EventFailureIgnored }
func (SplitDistributed) eventType() string  { return EventSplitDistributed }
func (RefundRequested) eventType() string   { return EventRefundRequested }
func (RefundProcessed) eventType() string   { return EventRefundProcessed }
func (TokenQuoted) eventType() string       { return EventTokenQuoted }
func (PaymentRestored) eventType() string   { return EventPaymentRestored }

// TypeOf returns an event's type name.
func TypeOf(e Event) string { return e.eventType() }

// Decode turns a stored event into its domain type; unknown types are ErrUnknownEvent.
func Decode(typ string, data []byte) (Event, error) {
	var e Event
	switch typ {
	case EventGenerated:
		e = &Generated{}
	case EventAttemptStarted:
		e = &AttemptStarted{}
	case EventTelemetry:
		e = &TelemetryRecorded{}
	case EventSubmitted:
		e = &PaymentSubmitted{}
	case EventACHAccepted:
		e = &ACHAccepted{}
	case EventConfirmed:
		e = &PaymentConfirmed{}
	case EventFailed:
		e = &PaymentFailed{}
	case EventFailureIgnored:
		e = &FailureIgnored{}
	case EventSplitDistributed:
		e = &SplitDistributed{}
	case EventRefundRequested:
		e = &RefundRequested{}
	case EventRefundProcessed:
		e = &RefundProcessed{}
	case EventTokenQuoted:
		e = &TokenQuoted{}
	case EventPaymentRestored:
		e = &PaymentRestored{}
	case EventRefundRefused:
		e = &RefundRefused{}
	case EventRefundReverted:
		e = &RefundReverted{}
	case EventWindowExpired:
		e = &PaymentWindowExpired{}
	case EventPaymentIgnored:
		e = &PaymentIgnored{}
	case EventDepositTransferSeen:
		e = &DepositTransferSeen{}
	case EventDepositTransferConfirmed:
		e = &DepositTransferConfirmed{}
	case EventDepositTransferDropped:
		e = &DepositTransferDropped{}
	case EventDepositSwept:
		e = &DepositSwept{}
	case EventDepositChainGone:
		e = &DepositChainGone{}
	case EventDepositUnknownToken:
		e = &DepositUnknownToken{}
	default:
		return nil, fmt.Errorf("%w: %s", ErrUnknownEvent, typ)
	}
	if err := json.Unmarshal(data, e); err != nil {
		return nil, fmt.Errorf("decode %s: %w", typ, err)
	}
	return deref(e), nil
}

func deref(e Event) Event {
	switch v := e.(type) {
	case *Generated:
		return *v
	case *DepositChainGone:
		return *v
	case *AttemptStarted:
		return *v
	case *TelemetryRecorded:
		return *v
	case *PaymentSubmitted:
		return *v
	case *ACHAccepted:
		return *v
	case *PaymentConfirmed:
		return *v
	case *PaymentFailed:
		return *v
	case *FailureIgnored:
		return *v
	case *SplitDistributed:
		return *v
	case *RefundRequested:
		return *v
	case *RefundProcessed:
		return *v
	case *TokenQuoted:
		return *v
	case *PaymentRestored:
		return *v
	case *RefundRefused:
		return *v
	case *RefundReverted:
		return *v
	case *PaymentWindowExpired:
		return *v
	case *PaymentIgnored:
		return *v
	case *DepositTransferSeen:
		return *v
	case *DepositTransferConfirmed:
		return *v
	case *DepositTransferDropped:
		return *v
	case *DepositSwept:
		return *v
	case *DepositUnknownToken:
		return *v
	}
	return e
}
