package readmodels

import (
	"fmt"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/subscription"
)

// The webhook payloads (DESIGN 9's catalog of event types), one type per event type: what the
// status read answers, what receipt webhooks deliver and what the merchants' event log (webhook
// endpoints, the event stream) records are these values, so that they never describe a receipt
// differently. They live here because every reader of them (transport, projections, webhooks)
// may import readmodels.

// Event types of the merchants' event log and of webhook deliveries.
const (
	EventReceiptCreated           = "receipt.created"
	EventReceiptStatusUpdated     = "receipt.status_updated"
	EventReceiptPaymentDetected   = "receipt.payment_detected"
	EventSubscriptionCharged      = subscription.WebhookCharged // its payload: settlement's charge outcome
	EventSubscriptionChargeFailed = subscription.WebhookChargeFailed
	EventSplitDistributed         = "split.distributed"
	EventReceiptRefunded          = "receipt.refunded"      // a refund processed (DESIGN 10)
	EventReceiptRefundFailed      = "receipt.refund_failed" // a refund claim the chain does not support
	EventWebhookTest              = "webhook.test"
)

// DefaultPayloadToken is the payload's token when neither a payment nor a quote names one;
// DefaultBrandKey the brand of merchants without a partner brand.
const (
	DefaultPayloadToken = "USDC"
	DefaultBrandKey     = "payledger"
)

// ReceiptPayload is the spec's payload of a receipt: the status read's fields and the data of
// receipt.status_updated. Failure fields and provider references are null unless the status is
// failed; missing provider details stay null. previousStatus and token are always strings
// (token: the paid or attempted token, else the latest quoted one, else the site's default
// payment token recorded on the receipt at creation, else USDC); customerTotalUsd is the total,
// which already includes the processing fee (receipt.Price); processorSourceAmountUsd is null
// until the processor reports it; amountRequired and amountReceived are in amountToken
// (AmountTokenOf), which token need not be; refundedUsd counts processed refunds, refunds lists
// them, processorPaymentsToRefund counts card payments the receipt does not count
// (RefundsPayload). Amounts in USD are rendered from integer cents.
type ReceiptPayload struct {
	ReceiptID                string            `json:"receiptId"`
	Status                   string            `json:"status"`
	PreviousStatus           string            `json:"previousStatus"`
	FailureCode              *string           `json:"failureCode"`
	FailureCategory          *string           `json:"failureCategory"`
	FailureReason            *string           `json:"failureReason"`
	FailureAction            *string           `json:"failureAction"`
	ProviderErrorCode        *string           `json:"providerErrorCode"`
	ProviderRequestID        *string           `json:"providerRequestId"`
	TransactionHash          *string           `json:"transactionHash"`
	BuyerWallet              *string           `json:"buyerWallet"`
	MerchantWallet           string            `json:"merchantWallet"`
	TotalUSD                 float64           `json:"totalUsd"`
	CustomerTotalUSD         float64           `json:"customerTotalUsd"`
	ProcessorSourceAmountUSD *float64          `json:"processorSourceAmountUsd"`
	ProcessorSessionID       *string           `json:"processorSessionId"`
	IsProcessorSessionUnique bool              `json:"isProcessorSessionUnique"`
	TransactionID            *string           `json:"transactionId"`
	Metadata                 map[string]string `json:"metadata"`
	Token                    string            `json:"token"`
	BrandKey                 string            `json:"brandKey"`
	Timestamp                int64             `json:"timestamp"`
	DepositAddress           *string           `json:"depositAddress"`
	AmountRequired           *string           `json:"amountRequired"`
	AmountReceived           *string           `json:"amountReceived"`
	AmountToken              string            `json:"amountToken"` // the token amountRequired and amountReceived are in (stop 69)
	PaidLate                 bool              `json:"paidLate"`
	RefundsPayload                             // refundedUsd and refunds (DESIGN 10)
}

// ReceiptPayloadOf renders st.
func ReceiptPayloadOf(st receipt.State) ReceiptPayload {
	g := st.Receipt
	p := ReceiptPayload{ReceiptID: g.ReceiptID, Status: string(st.Status), PreviousStatus: firstOf(string(st.PreviousStatus), string(st.Status)),
		MerchantWallet: g.Merchant, TotalUSD: g.Total.Float(), CustomerTotalUSD: g.Total.Float(), TransactionID: nullString(g.TransactionID),
		Metadata: g.Metadata, Token: firstOf(st.QuotedToken, g.DefaultToken, DefaultPayloadToken), BrandKey: firstOf(g.BrandKey, DefaultBrandKey),
		Timestamp: st.UpdatedAt, DepositAddress: nullString(st.DepositAddress()), AmountRequired: nullString(st.AmountRequired()),
		AmountReceived: nullString(st.AmountReceived()), AmountToken: AmountTokenOf(st), PaidLate: st.PaidLate(),
		RefundsPayload: RefundsPayloadOf(st)}
	if a, ok := st.Current(); ok {
		p.ProcessorSessionID, p.IsProcessorSessionUnique = nullString(a.SessionID), a.SessionUnique && a.SessionID != ""
		if a.Token != "" {
			p.Token = a.Token
		}
		p.BuyerWallet = nullString(a.BuyerWallet)
	}
	if pay := st.Payment; pay != nil && st.Status != receipt.StatusFailed {
		p.TransactionHash, p.BuyerWallet = nullString(pay.TransactionHash), nullString(pay.BuyerWallet)
		if pay.Token != "" {
			p.Token = pay.Token
		}
		if pay.SourceAmount != nil {
			v := pay.SourceAmount.Float()
			p.ProcessorSourceAmountUSD = &v
		}
	}
	if f := st.FailureView(); f != nil {
		p.FailureCode, p.FailureCategory, p.FailureReason, p.FailureAction = &f.Code, &f.Category, &f.Reason, &f.Action
		p.ProviderErrorCode, p.ProviderRequestID = nullString(f.ProviderErrorCode), nullString(f.ProviderRequestID)
		p.TransactionHash, p.BuyerWallet = nil, nil
	}
	// Paid by its deposit address without a payment recorded yet: the first transfer seen.
	if c, ok := st.FirstCredit(); ok && st.Payment == nil && st.Status != receipt.StatusFailed {
		p.TransactionHash, p.BuyerWallet, p.Token = &c.TransactionHash, &c.Sender, c.Token
	}
	return p
}

// AmountTokenOf is the token st's amountRequired and amountReceived are in (stop 69): the
// receipt's requested token (receipt.State.RequestedToken), as the payment page's stream names it.
// token is another thing, the paid or attempted token: a receipt paid by a USDC transfer after
// an ETH one reads its amounts in ETH and its token USDC, and without this field the amounts
// stood beside a symbol that was not theirs. It is the same token for a receipt paid in one.
func AmountTokenOf(st receipt.State) string { return st.RequestedToken() }

// ReceiptWebhook is receipt.status_updated as delivered to the receipt's webhook URL and
// recorded in the merchants' event log: the receipt's payload with the event, the status
// change's idempotency key and the time of sending (or of the change, in the log).
type ReceiptWebhook struct {
	ReceiptPayload
	Event          string `json:"event"`
	IdempotencyKey string `json:"idempotencyKey"`
}

// ReceiptWebhookOf renders st's status change as sent at at.
func ReceiptWebhookOf(st receipt.State, at time.Time) ReceiptWebhook {
	w := ReceiptWebhook{ReceiptPayload: ReceiptPayloadOf(st), Event: EventReceiptStatusUpdated, IdempotencyKey: st.IdempotencyKey()}
	w.Timestamp = at.UnixMilli()
	return w
}

// PaymentDetected is receipt.payment_detected: a transfer seen at the receipt's deposit address.
type PaymentDetected struct {
	ReceiptID       string  `json:"receiptId"`
	Status          string  `json:"status"`
	DepositAddress  *string `json:"depositAddress"`
	TransactionHash string  `json:"transactionHash"`
	LogIndex        int     `json:"logIndex"`
	BlockNumber     uint64  `json:"blockNumber"`
	Sender          string  `json:"sender"`
	Token           string  `json:"token"`
	AmountUnits     string  `json:"amountUnits"`
	AmountRequired  *string `json:"amountRequired"`
	AmountReceived  *string `json:"amountReceived"`
	DetectedAt      int64   `json:"detectedAt"`
}

// PaymentDetectedOf renders transfer d seen at st's deposit address.
func PaymentDetectedOf(st receipt.State, d receipt.DepositTransferSeen) PaymentDetected {
	return PaymentDetectedWith(st, st, d)
}

// Amounts are a receipt's amounts in its requested token: its receipt.State's, which sum all its
// credits, or a receipt.Folder's, which keeps them as its credits change.
type Amounts interface {
	AmountRequired() string
	AmountReceived() string
}

// PaymentDetectedWith is PaymentDetectedOf with the amounts read from am: the receipts projector
// renders each sighting of a batch from its Folder's running sums, where the state's would sum
// every credit for each one (a catch-up of k sightings of n credits: k×n, stop 73).
func PaymentDetectedWith(st receipt.State, am Amounts, d receipt.DepositTransferSeen) PaymentDetected {
	return PaymentDetected{ReceiptID: st.Receipt.ReceiptID, Status: string(st.Status), DepositAddress: nullString(st.DepositAddress()),
		TransactionHash: d.TransactionHash, LogIndex: d.LogIndex, BlockNumber: d.BlockNumber, Sender: d.Sender, Token: d.Token,
		AmountUnits: d.AmountUnits, AmountRequired: nullString(am.AmountRequired()), AmountReceived: nullString(am.AmountReceived()), DetectedAt: d.At}
}

// PaymentDetectedKey records a transfer once (seen again in another block after a reorg too).
func PaymentDetectedKey(d receipt.DepositTransferSeen) string {
	return fmt.Sprintf("payment-detected:%s:%d", strings.ToLower(d.TransactionHash), d.LogIndex)
}

// SplitDistributed is split.distributed: a receipt's funds released to its split's payees.
type SplitDistributed struct {
	ReceiptID         string                `json:"receiptId"`
	TransactionHash   string                `json:"transactionHash"`
	TransactionHashes []string              `json:"transactionHashes"`
	Token             string                `json:"token"`
	Amounts           []receipt.SplitAmount `json:"amounts"`
	DistributedAt     int64                 `json:"distributedAt"`
}

// SplitDistributedOf renders st's distribution d.
func SplitDistributedOf(st receipt.State, d receipt.SplitDistributed) SplitDistributed {
	amounts := d.Amounts
	if amounts == nil {
		amounts = []receipt.SplitAmount{}
	}
	return SplitDistributed{ReceiptID: st.Receipt.ReceiptID, TransactionHash: d.TransactionHash, TransactionHashes: d.TransactionHashes,
		Token: d.Token, Amounts: amounts, DistributedAt: d.At}
}

// WebhookTest is webhook.test: a test event an endpoint's owner asked for.
type WebhookTest struct {
	EndpointID string `json:"endpointId"`
	Message    string `json:"message"`
}

// firstOf is the first of vals that is not blank, trimmed.
func firstOf(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// nullString is s, or NULL (nil) when it is empty.
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
