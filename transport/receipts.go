package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// ReceiptReader queries the receipts read model.
type ReceiptReader interface {
	Get(ctx context.Context, merchant, id string) (readmodels.ReceiptRow, error)
	List(ctx context.Context, merchant, status string, limit int, cursor string) ([]readmodels.ReceiptRow, string, error)
}

// Waiter blocks until a projection has reached a position (read-your-writes).
type Waiter interface {
	WaitFor(ctx context.Context, pos commands.Position) error
}

// readWait bounds how long a write waits for its read model.
const readWait = 5 * time.Second

// waitReadable waits until the receipts projection holds the append res to receipt id.
func (s *Server) waitReadable(ctx context.Context, id string, res commands.AppendResult) error {
	ctx, cancel := context.WithTimeout(ctx, readWait)
	defer cancel()
	err := s.receiptsView.WaitFor(ctx, res.Position)
	s.caches.forgetStatus(id)
	return err
}

type lineView struct {
	Label        string   `json:"label"`
	PriceUSD     float64  `json:"priceUsd"`
	UnitPriceUSD *float64 `json:"unitPriceUsd,omitempty"`
	Qty          *int64   `json:"qty,omitempty"`
	Thumb        string   `json:"thumb,omitempty"`
	ItemID       string   `json:"itemId,omitempty"`
	SKU          string   `json:"sku,omitempty"`
}

// receiptView is the spec's Receipt. Its fields are in the order encoding/json gives a map
// (alphabetical), so responses stay byte for byte what they were when it was a map.
type receiptView struct {
	BrandName        string            `json:"brandName"`
	CreatedAt        int64             `json:"createdAt"`
	Currency         string            `json:"currency"`
	JurisdictionCode *string           `json:"jurisdictionCode"`
	LineItems        []lineView        `json:"lineItems"`
	MerchantWallet   string            `json:"merchantWallet"`
	Metadata         map[string]string `json:"metadata"`
	ProcessingFeeUSD float64           `json:"processingFeeUsd"`
	ReceiptID        string            `json:"receiptId"`
	Status           string            `json:"status"`
	SubtotalUSD      float64           `json:"subtotalUsd"`
	TaxComponents    []string          `json:"taxComponents"`
	TaxRate          float64           `json:"taxRate"`
	TaxUSD           float64           `json:"taxUsd"`
	TotalUSD         float64           `json:"totalUsd"`
	TransactionID    *string           `json:"transactionId"`
	depositView
	refundsView
}

// viewReceipt renders the spec's Receipt. Amounts are in the receipt's currency (see
// docs/decisions.md for EUR).
func viewReceipt(st receipt.State) receiptView {
	g := st.Receipt
	lines := make([]lineView, len(g.LineItems))
	for i, l := range g.LineItems {
		lines[i] = lineView{Label: l.Label, PriceUSD: l.Amount.Float(), Thumb: l.Thumb, ItemID: l.ItemID, SKU: l.SKU}
		if l.Kind == receipt.KindItem {
			q, u := l.Qty, l.Unit.Float()
			lines[i].Qty, lines[i].UnitPriceUSD = &q, &u
			if l.Thumb == "" { // items without a picture: drawn here, not stored in every event
				lines[i].Thumb = placeholderThumb(l.Label)
			}
		}
	}
	taxRate, _ := money.ParseRate(orZero(g.TaxRate))
	components := g.TaxComponents
	if components == nil {
		components = []string{}
	}
	return receiptView{
		ReceiptID: g.ReceiptID, TotalUSD: g.Total.Float(), Currency: g.Currency, LineItems: lines,
		CreatedAt: g.CreatedAt, BrandName: g.BrandName, Status: string(st.Status),
		JurisdictionCode: nullable(g.JurisdictionCode), TaxRate: taxRate.Float(), TaxComponents: components,
		TransactionID: nullable(g.TransactionID), Metadata: g.Metadata,
		SubtotalUSD: g.Subtotal.Float(), TaxUSD: g.Tax.Float(), ProcessingFeeUSD: g.Fee.Float(),
		MerchantWallet: g.Merchant, depositView: viewDeposit(st), refundsView: viewRefunds(st),
	}
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func nullMap(m map[string]string) any {
	if m == nil {
		return nil
	}
	return m
}

func stateOf(row readmodels.ReceiptRow) receipt.State { return row.State }

type directLine struct {
	Label    string       `json:"label"`
	PriceUSD *json.Number `json:"priceUsd"`
}

type directReceiptRequest struct {
	ID        string        `json:"id"`
	LineItems *[]directLine `json:"lineItems"`
	TotalUSD  *json.Number  `json:"totalUsd"`
	Currency  string        `json:"currency"`
	optionalFields
}

func (s *Server) createReceipt(c echo.Context) error {
	raw, err := readBody(c)
	if err != nil {
		return err
	}
	var req directReceiptRequest
	if err := decodeBytes(raw, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(c)
	cmd := commands.CreateReceipt{Merchant: p.Wallet, ID: req.ID, TotalUSD: req.TotalUSD, Currency: req.Currency, Issue: s.issueOf(c, p, raw)}
	if req.LineItems != nil {
		lines := make([]commands.ReceiptLine, len(*req.LineItems))
		for i, l := range *req.LineItems {
			lines[i] = commands.ReceiptLine{Label: l.Label, PriceUSD: l.PriceUSD}
		}
		cmd.Lines = &lines
	}
	if err := s.parseOptional(req.optionalFields, &cmd.Details); err != nil {
		return err
	}
	issued, err := s.issue(c, func(ctx context.Context) (commands.Issued, error) { return s.cmd.CreateReceipt.Handle(ctx, cmd) })
	if err != nil {
		return err
	}
	return s.renderIssued(c, issued, http.StatusCreated)
}

var knownStatuses = []string{"generated", "pending", "paid", "ach_pending", "reconciled", "failed", "refund_requested", "refunded"}

func (s *Server) listReceipts(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	limit, err := intParam(c, "limit", 25, 1, 100)
	if err != nil {
		return err
	}
	status := c.QueryParam("status")
	if status != "" && !slices.Contains(knownStatuses, status) {
		return InvalidInput("status must be one of " + strings.Join(knownStatuses, ", "))
	}
	rows, next, err := s.receipts.List(c.Request().Context(), p.Wallet, status, limit, c.QueryParam("cursor"))
	if errors.Is(err, readmodels.ErrBadCursor) {
		return InvalidInput("cursor is not one this API issued")
	}
	if err != nil {
		return err
	}
	out := make([]receiptView, len(rows))
	for i, r := range rows {
		out[i] = viewReceipt(stateOf(r))
	}
	return c.JSON(http.StatusOK, map[string]any{"receipts": out, "next": nullable(next)})
}

var errReceiptNotFound = NewError(http.StatusNotFound, "not_found", "Receipt not found")

func (s *Server) ownReceipt(c echo.Context, id string) (readmodels.ReceiptRow, error) {
	p, _ := PrincipalFrom(c)
	if id == "" {
		return readmodels.ReceiptRow{}, InvalidInput("receiptId is required")
	}
	row, err := s.receipts.Get(c.Request().Context(), p.Wallet, id)
	if errors.Is(err, readmodels.ErrNotFound) {
		return row, errReceiptNotFound
	}
	return row, err
}

func (s *Server) getReceipt(c echo.Context) error {
	row, err := s.ownReceipt(c, c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"receipt": viewReceipt(stateOf(row))})
}

// DefaultPayloadToken is the payload's token when neither a payment nor a quote names one.
const DefaultPayloadToken = "USDC"

// previousStatus is the status before the current one; a receipt's first status is its own
// previous one (docs/decisions.md, "Payload types"), so the field is always a string.
func previousStatus(st receipt.State) string {
	return first(string(st.PreviousStatus), string(st.Status))
}

// statusView is the status read: the webhook payload's fields without event and idempotencyKey,
// plus webhookDelivery. Failure fields and provider references are null unless the status is
// failed; missing provider details stay null. previousStatus and token are always strings (token:
// the paid or attempted token, else the latest quoted one, else the site's default payment token
// recorded on the receipt at creation, else USDC); customerTotalUsd is the
// total, which already includes the processing fee (receipt.Price); processorSourceAmountUsd is
// null until the processor reports it.
func statusView(st receipt.State, outboxState string) map[string]any {
	g := st.Receipt
	delivery := "none" // no webhook URL, or nothing owed yet
	switch outboxState {
	case readmodels.NotePending, readmodels.NoteRetrying, readmodels.NoteMarked:
		delivery = "pending"
	case readmodels.NoteDelivered, readmodels.NoteFailed:
		delivery = outboxState
	}
	v := map[string]any{
		"receiptId": g.ReceiptID, "status": string(st.Status), "previousStatus": previousStatus(st),
		"failureCode": nil, "failureCategory": nil, "failureReason": nil, "failureAction": nil,
		"providerErrorCode": nil, "providerRequestId": nil, "transactionHash": nil, "buyerWallet": nil,
		"merchantWallet": g.Merchant, "totalUsd": g.Total.Float(), "customerTotalUsd": g.Total.Float(), "processorSourceAmountUsd": nil,
		"processorSessionId": nil, "isProcessorSessionUnique": false, "transactionId": nullable(g.TransactionID),
		"metadata": nullMap(g.Metadata), "token": first(st.QuotedToken, g.DefaultToken, DefaultPayloadToken), "brandKey": first(g.BrandKey, DefaultBrandKey), "timestamp": st.UpdatedAt,
		"webhookDelivery": delivery,
	}
	if a, ok := st.Current(); ok {
		v["processorSessionId"], v["isProcessorSessionUnique"] = nullable(a.SessionID), a.SessionUnique && a.SessionID != ""
		if a.Token != "" {
			v["token"] = a.Token
		}
		if a.BuyerWallet != "" {
			v["buyerWallet"] = a.BuyerWallet
		}
	}
	if p := st.Payment; p != nil && st.Status != receipt.StatusFailed {
		v["transactionHash"], v["buyerWallet"] = nullable(p.TransactionHash), nullable(p.BuyerWallet)
		if p.Token != "" {
			v["token"] = p.Token
		}
		if p.SourceAmount != nil {
			v["processorSourceAmountUsd"] = p.SourceAmount.Float()
		}
	}
	if f := st.FailureView(); f != nil {
		v["failureCode"], v["failureCategory"], v["failureReason"], v["failureAction"] = f.Code, f.Category, f.Reason, f.Action
		v["providerErrorCode"], v["providerRequestId"] = nullable(f.ProviderErrorCode), nullable(f.ProviderRequestID)
		v["transactionHash"], v["buyerWallet"] = nil, nil
	}
	depositFields(v, st)
	refundFields(v, st)
	return v
}

// receiptStatus answers the status read, from the instance's status cache when it holds the
// receipt. Only settled delivery states are cached ("none", "delivered", "failed"): the
// dispatcher moves pending notifications on without announcing it, while every change out of a
// settled state is a receipts-projector commit (or a manual redelivery) that invalidates the
// receipt in every instance.
func (s *Server) receiptStatus(c echo.Context) error {
	id := c.QueryParam("receiptId")
	if id == "" {
		return InvalidInput("receiptId is required")
	}
	// Read for any merchant (one cache entry per receipt); the owner is checked below.
	st, err := s.caches.status.Load(id, func() (cachedStatus, bool, error) {
		row, err := s.receipts.Get(c.Request().Context(), "", id)
		if err != nil {
			return cachedStatus{}, false, err
		}
		view := statusView(row.State, row.Delivery)
		body, err := json.Marshal(view)
		if err != nil {
			return cachedStatus{}, false, fmt.Errorf("encode status: %w", err)
		}
		return cachedStatus{merchant: row.State.Receipt.Merchant, body: body}, view["webhookDelivery"] != "pending", nil
	})
	if errors.Is(err, readmodels.ErrNotFound) {
		st, err = s.statusFromEvents(c.Request().Context(), id)
	}
	if err != nil {
		return err
	}
	if p, _ := PrincipalFrom(c); p.Wallet != "" && p.Wallet != st.merchant {
		return errReceiptNotFound
	}
	return c.JSONBlob(http.StatusOK, st.body)
}

// statusFromEvents answers a status read for a receipt the read model does not show: one the
// projector has not applied yet, or whose row a crash of PostgreSQL took back with the
// projector's asynchronous commit while its event is stored. The event log is the truth, so the
// status is folded from it (not cached); only a receipt without events is not found.
func (s *Server) statusFromEvents(ctx context.Context, id string) (cachedStatus, error) {
	loaded, err := commands.LoadReceipt(ctx, s.events, id)
	if err != nil {
		return cachedStatus{}, err
	}
	st := loaded.State
	if !st.Exists {
		// Accepted in degraded mode by this instance and not replayed yet.
		if st, ok := s.journaled.Journaled(id); ok {
			return s.statusOf(st)
		}
		return cachedStatus{}, errReceiptNotFound
	}
	return s.statusOf(st)
}

// statusOf renders the status read of a receipt the read model does not show yet.
func (s *Server) statusOf(st receipt.State) (cachedStatus, error) {
	outbox := ""
	if st.Receipt.WebhookURL != "" {
		outbox = readmodels.NotePending // owed, as far as the log tells
	}
	body, err := json.Marshal(statusView(st, outbox))
	if err != nil {
		return cachedStatus{}, fmt.Errorf("encode status: %w", err)
	}
	return cachedStatus{merchant: st.Receipt.Merchant, body: body}, nil
}

func (s *Server) receiptEvents(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	h, err := readmodels.ReceiptHistory(c.Request().Context(), s.events, c.Param("id"), p.Wallet)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h)
}
