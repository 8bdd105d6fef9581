package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/tracing"
)

// ReceiptReader queries the receipts read model.
type ReceiptReader interface {
	Get(ctx context.Context, merchant, id string) (readmodels.ReceiptRow, error)
	List(ctx context.Context, merchant, status string, limit int, cursor string) ([]readmodels.ReceiptRow, string, error)
}

// Waiter blocks until a projection has reached a position (read-your-writes).
type Waiter interface {
	WaitFor(ctx context.Context, pos commands.Position) error
	// Position is how far the projection has applied the log: a write at or before it is
	// readable at once.
	Position() commands.Position
}

// readWait bounds how long a write waits for its read model.
const readWait = 5 * time.Second

// waitReadable waits until the receipts projection holds the append res to receipt id.
func (s *Server) waitReadable(ctx context.Context, id string, res commands.AppendResult) error {
	ctx, span := s.tracer.Start(ctx, "projector.wait", trace.WithAttributes(tracing.ReceiptID.String(id)))
	defer span.End()
	defer s.caches.forgetStatus(id)
	if !s.receiptsView.Position().Less(res.Position) {
		// Applied already (most orders are, at append): no deadline to arm and disarm, which was
		// 1% of serve's CPU per order (issue 38).
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, readWait)
	defer cancel()
	err := s.receiptsView.WaitFor(ctx, res.Position)
	if err != nil {
		span.SetStatus(codes.Error, "read model behind")
	}
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
// (alphabetical), so responses stay byte for byte what they were when it was a map. An issued
// receipt's answer writes it by hand (receipt_json.go): a field added here goes there too
// (TestReceiptJSONAsEncodingJSON fails until it does).
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
	readmodels.RefundsPayload
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
	taxRate := rateFloat(g.TaxRate)
	components := g.TaxComponents
	if components == nil {
		components = []string{}
	}
	return receiptView{
		ReceiptID: g.ReceiptID, TotalUSD: g.Total.Float(), Currency: g.Currency, LineItems: lines,
		CreatedAt: g.CreatedAt, BrandName: g.BrandName, Status: string(st.Status),
		JurisdictionCode: nullable(g.JurisdictionCode), TaxRate: taxRate, TaxComponents: components,
		TransactionID: nullable(g.TransactionID), Metadata: g.Metadata,
		SubtotalUSD: g.Subtotal.Float(), TaxUSD: g.Tax.Float(), ProcessingFeeUSD: g.Fee.Float(),
		MerchantWallet: g.Merchant, depositView: viewDeposit(st), RefundsPayload: readmodels.RefundsPayloadOf(st),
	}
}

// rateFloat is a stored rate ("0.0725") for JSON output: money.ParseRate(s).Float(), 0 for an
// empty or malformed rate. A plain decimal is read by strconv (issue 38: the exact rational cost
// a big.Rat per answer), which gives the same float64, the nearest to the decimal's value.
func rateFloat(s string) float64 {
	if plainDecimal(s) {
		f, err := strconv.ParseFloat(s, 64)
		if err == nil {
			return f
		}
	}
	r, _ := money.ParseRate(orZero(s))
	return r.Float()
}

// plainDecimal: digits with at most one point, optionally negative, nothing else.
func plainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	digits, points := 0, 0
	for i := range len(s) {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
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
	if err := checkLinks(&cmd.Details); err != nil {
		return err
	}
	issued, err := s.issue(c, func(ctx context.Context) (commands.Issued, error) { return s.cmd.CreateReceipt.Handle(ctx, cmd) })
	if err != nil {
		return err
	}
	return s.renderIssued(c, issued, http.StatusCreated)
}

func (s *Server) listReceipts(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	limit, err := intParam(c, "limit", 25, 1, 100)
	if err != nil {
		return err
	}
	status := c.QueryParam("status")
	if status != "" && !slices.Contains(receipt.StatusNames(), status) {
		return InvalidInput("status must be one of " + strings.Join(receipt.StatusNames(), ", "))
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

// getReceipt answers the caller's receipt; one the read model does not show (not applied yet, or
// its row taken back by a crash of PostgreSQL) is folded from its events, as the status read does.
func (s *Server) getReceipt(c echo.Context) error {
	row, err := s.ownReceipt(c, c.Param("id"))
	if errors.Is(err, errReceiptNotFound) {
		row.State, err = s.receiptFromEvents(c.Request().Context(), c.Param("id"))
		if p, _ := PrincipalFrom(c); err == nil && row.State.Receipt.Merchant != p.Wallet {
			err = errReceiptNotFound
		}
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"receipt": viewReceipt(stateOf(row))})
}

// statusRead is the status read: the receipt's payload (readmodels.ReceiptPayload, the data of
// its webhooks too) and the state of its webhook's delivery.
type statusRead struct {
	readmodels.ReceiptPayload
	WebhookDelivery string `json:"webhookDelivery"`
}

// statusView is the status read of st whose outbox note is in outboxState.
func statusView(st receipt.State, outboxState string) statusRead {
	delivery := "none" // no webhook URL, or nothing owed yet
	switch outboxState {
	case readmodels.NotePending, readmodels.NoteRetrying, readmodels.NoteMarked:
		delivery = "pending"
	case readmodels.NoteDelivered, readmodels.NoteFailed:
		delivery = outboxState
	}
	return statusRead{ReceiptPayload: readmodels.ReceiptPayloadOf(st), WebhookDelivery: delivery}
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
		return cachedStatus{merchant: row.State.Receipt.Merchant, body: body}, view.WebhookDelivery != "pending", nil
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
	st, err := s.receiptFromEvents(ctx, id)
	if err != nil {
		return cachedStatus{}, err
	}
	return s.statusOf(st)
}

// receiptFromEvents is receipt id (of any merchant) folded from its events, or accepted in
// degraded mode by this instance and not replayed yet; errReceiptNotFound when neither.
func (s *Server) receiptFromEvents(ctx context.Context, id string) (receipt.State, error) {
	st, err := s.aggregates.ReceiptState(ctx, id)
	if err != nil {
		return receipt.State{}, err
	}
	if st.Exists {
		return st, nil
	}
	if st, ok := s.journaled.Journaled(id); ok {
		return st, nil
	}
	return receipt.State{}, errReceiptNotFound
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
	h, err := s.histories.ReceiptHistory(c.Request().Context(), c.Param("id"), p.Wallet)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, h)
}
