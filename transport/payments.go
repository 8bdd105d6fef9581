package transport

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/onramp"
)

// Processor is the onramp processor's session API.
type Processor interface {
	Create(ctx context.Context, req onramp.CreateRequest) (onramp.Session, error)
	Get(ctx context.Context, id string) (onramp.Session, error)
}

// ProcessorEventStore deduplicates and keeps the processor's signed events.
type ProcessorEventStore interface {
	Record(ctx context.Context, id, receiptID, sessionID, status string, body []byte) (bool, error)
	MarkProcessed(ctx context.Context, id string) error
	SessionShared(ctx context.Context, sessionID, receiptID string) (bool, error)
}

// signatureTolerance is how far a processor event's timestamp may be from now.
const signatureTolerance = 5 * time.Minute

var processorStatuses = []string{"fulfillment_processing", "ach_pending", "fulfillment_complete", "rejected", "expired", "cancelled"}

var (
	txHashRE = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	errSig   = NewError(http.StatusUnauthorized, "unauthorized", "Invalid processor signature")
)

func newAttemptID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "att_" + hex.EncodeToString(b[:])
}

// verifyProcessorSignature checks `t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: a bad
// or missing signature is 401, a good one outside the tolerance 400.
func (s *Server) verifyProcessorSignature(header string, body []byte) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if ts == "" || len(sigs) == 0 || s.cfg.ProcessorWebhookSecret == "" {
		return errSig
	}
	mac := hmac.New(sha256.New, []byte(s.cfg.ProcessorWebhookSecret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	ok := false
	for _, sig := range sigs {
		got, err := hex.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			ok = true
		}
	}
	if !ok {
		return errSig
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errSig
	}
	if d := s.now().Sub(time.Unix(sec, 0)); d > signatureTolerance || d < -signatureTolerance {
		return InvalidInput("processor event timestamp is outside the 5-minute tolerance")
	}
	return nil
}

type processorEvent struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Created int64  `json:"created"`
	Data    struct {
		SessionID       string       `json:"sessionId"`
		ReceiptID       string       `json:"receiptId"`
		AttemptID       string       `json:"attemptId"`
		Status          string       `json:"status"`
		ErrorCode       string       `json:"errorCode"`
		RequestID       string       `json:"requestId"`
		TransactionHash string       `json:"transactionHash"`
		WalletAddress   string       `json:"walletAddress"`
		SourceAmountUSD *json.Number `json:"sourceAmountUsd"`
	} `json:"data"`
}

// dollarsToCents reads a USD amount, rounding half-up to the cent.
func dollarsToCents(n *json.Number) (*int64, error) {
	if n == nil || *n == "" {
		return nil, nil
	}
	r, ok := new(big.Rat).SetString(n.String())
	if !ok || r.Sign() < 0 {
		return nil, fmt.Errorf("invalid amount %q", n.String())
	}
	c := int64(money.RoundHalfUp(r.Mul(r, big.NewRat(100, 1))))
	return &c, nil
}

func (s *Server) processorWebhook(c echo.Context) error {
	raw, err := readBody(c)
	if err != nil {
		return err
	}
	if err := s.verifyProcessorSignature(c.Request().Header.Get("Processor-Signature"), raw); err != nil {
		return err
	}
	var ev processorEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return InvalidInput("processor event is not valid JSON")
	}
	d := ev.Data
	if ev.ID == "" || !slices.Contains(processorStatuses, d.Status) {
		return InvalidInput("processor event needs an id and a data.status of " + strings.Join(processorStatuses, ", "))
	}
	ctx := c.Request().Context()
	processed, err := s.processorEvents.Record(ctx, ev.ID, d.ReceiptID, d.SessionID, d.Status, raw)
	if err != nil {
		return err
	}
	if processed {
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "duplicate": true})
	}
	amount, err := dollarsToCents(d.SourceAmountUSD)
	if err != nil {
		return InvalidInput("data.sourceAmountUsd " + err.Error())
	}
	at := s.now().UnixMilli()
	if ev.Created > 0 {
		at = ev.Created * 1000
	}
	u := commands.ProcessorUpdate{SessionID: d.SessionID, AttemptID: d.AttemptID, Status: d.Status, ErrorCode: d.ErrorCode,
		RequestID: d.RequestID, TransactionHash: d.TransactionHash, Wallet: d.WalletAddress, SourceAmountCents: amount, At: at, SessionUnique: true}
	if d.SessionID != "" && d.ReceiptID != "" {
		shared, err := s.processorEvents.SessionShared(ctx, d.SessionID, d.ReceiptID)
		if err != nil {
			return err
		}
		u.SessionUnique = !shared
	}
	meta := s.metadata(c, "processor")
	meta.CausationID = ev.ID
	_, res, err := commands.ChangeReceipt(ctx, s.events, d.ReceiptID, meta, func(st receipt.State) ([]receipt.Event, error) {
		return commands.DecideProcessorUpdate(st, u)
	})
	if errors.Is(err, receipt.ErrNotFound) || d.ReceiptID == "" {
		// Kept in processor_events for reconciliation; the processor must not retry forever.
		zerolog.Ctx(ctx).Warn().Str("processor_event", ev.ID).Str("receipt_id", d.ReceiptID).Msg("processor event for an unknown receipt stored")
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "stored": true})
	}
	if err != nil {
		return err
	}
	if err := s.processorEvents.MarkProcessed(ctx, ev.ID); err != nil {
		return err
	}
	if res.Version > 0 {
		_ = s.waitReadable(ctx, d.ReceiptID, res)
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

// receiptErr maps the receipt domain's errors onto the API's.
func receiptErr(err error) error {
	switch {
	case errors.Is(err, receipt.ErrNotFound):
		return errReceiptNotFound
	case errors.Is(err, receipt.ErrState), errors.Is(err, receipt.ErrAmount):
		return InvalidInput(err.Error())
	}
	return err
}

func (s *Server) startOnramp(c echo.Context) error {
	if s.processor == nil {
		return NewError(http.StatusServiceUnavailable, "processor_not_configured", "The card/bank onramp is not configured (PROCESSOR_API_URL)")
	}
	ctx := c.Request().Context()
	id := c.Param("id")
	loaded, err := commands.LoadReceipt(ctx, s.events, id)
	if err != nil {
		return err
	}
	st := loaded.State
	if _, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "probe"}); err != nil {
		return receiptErr(err)
	}
	sp, err := s.split(ctx, st.Receipt.Merchant)
	if err != nil {
		return err
	}
	if !sp.Configured {
		return NewError(http.StatusForbidden, "split_required", "Split contract not configured for this merchant")
	}
	attemptID := newAttemptID()
	sess, err := s.processor.Create(ctx, onramp.CreateRequest{ReceiptID: id, AttemptID: attemptID, AmountUSD: json.Number(st.Receipt.Total.String()),
		Token: "USDC", DestinationWallet: sp.Address, RedirectURL: st.Receipt.RedirectURL})
	if err != nil {
		zerolog.Ctx(ctx).Error().Err(err).Msg("onramp session")
		return NewError(http.StatusBadGateway, "processor_unavailable", "The onramp processor did not start a session; try again")
	}
	_, res, err := commands.ChangeReceipt(ctx, s.events, id, s.metadata(c, "customer"), func(st receipt.State) ([]receipt.Event, error) {
		return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: attemptID, Kind: "onramp", SessionID: sess.ID, SessionUnique: true, OpenedBy: "service", At: s.now().UnixMilli()})
	})
	if err != nil {
		return receiptErr(err)
	}
	_ = s.waitReadable(ctx, id, res)
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "attemptId": attemptID, "processorSessionId": sess.ID, "redirectUrl": sess.RedirectURL})
}

type telemetryRequest struct {
	Event     string `json:"event"`
	AttemptID string `json:"attemptId"`
}

func (s *Server) telemetry(c echo.Context) error {
	var req telemetryRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	if !receipt.ValidTelemetry(req.Event) {
		return InvalidInput("event must be one of " + strings.Join(receipt.TelemetryEvents, ", ") + " or onramp_*")
	}
	ctx := c.Request().Context()
	id := c.Param("id")
	_, _, err := commands.ChangeReceipt(ctx, s.events, id, s.metadata(c, "customer"), func(st receipt.State) ([]receipt.Event, error) {
		return receipt.RecordTelemetry(st, receipt.TelemetryRecorded{Event: req.Event, AttemptID: req.AttemptID, At: s.now().UnixMilli()})
	})
	if err != nil {
		return receiptErr(err)
	}
	if req.Event == "checkout_success" && s.processor != nil {
		// The browser's word is not proof: ask the processor.
		vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if _, err := s.verifyReceipt(vctx, id); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("receipt_id", id).Msg("verification after checkout_success")
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

type walletPaymentRequest struct {
	Token           string `json:"token"`
	TransactionHash string `json:"transactionHash"`
	BuyerWallet     string `json:"buyerWallet"`
}

func (s *Server) walletPayment(c echo.Context) error {
	var req walletPaymentRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	switch {
	case !slices.Contains(paymentTokens, req.Token):
		return InvalidInput("token must be one of " + strings.Join(paymentTokens, ", "))
	case !txHashRE.MatchString(req.TransactionHash):
		return InvalidInput("transactionHash must be 0x followed by 64 hex characters")
	case !ValidWallet(req.BuyerWallet):
		return InvalidInput("buyerWallet must be 0x followed by 40 hex characters")
	}
	ctx := c.Request().Context()
	attemptID := newAttemptID()
	now := s.now().UnixMilli()
	st, res, err := commands.ChangeReceipt(ctx, s.events, c.Param("id"), s.metadata(c, "customer"), func(st receipt.State) ([]receipt.Event, error) {
		evs, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: attemptID, Kind: "wallet", OpenedBy: "service", At: now})
		return commands.Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.Submit(st, receipt.PaymentSubmitted{AttemptID: attemptID, Source: "wallet", Token: req.Token,
				TransactionHash: strings.ToLower(req.TransactionHash), BuyerWallet: strings.ToLower(req.BuyerWallet), At: now})
		})
	})
	if err != nil {
		return receiptErr(err)
	}
	_ = s.waitReadable(ctx, c.Param("id"), res)
	// Paid comes only from the chain verifier reading the transaction receipt.
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "status": string(st.Status), "attemptId": attemptID})
}

// verifyReceipt asks the processor for the current onramp attempt's session and applies what it
// says through the guards. It reports whether the receipt changed.
func (s *Server) verifyReceipt(ctx context.Context, id string) (bool, error) {
	loaded, err := commands.LoadReceipt(ctx, s.events, id)
	if err != nil {
		return false, err
	}
	a, ok := loaded.State.Current()
	if !ok || a.Kind != "onramp" || a.SessionID == "" {
		return false, nil
	}
	sess, err := s.processor.Get(ctx, a.SessionID)
	if err != nil {
		return false, err
	}
	if !slices.Contains(processorStatuses, sess.Status) {
		return false, nil
	}
	amount, _ := dollarsToCents(sess.SourceAmountUSD)
	u := commands.ProcessorUpdate{SessionID: sess.ID, AttemptID: a.ID, Status: sess.Status, ErrorCode: sess.ErrorCode, RequestID: sess.RequestID,
		TransactionHash: sess.TransactionHash, Wallet: sess.WalletAddress, SourceAmountCents: amount, SessionUnique: a.SessionUnique, At: s.now().UnixMilli()}
	_, res, err := commands.ChangeReceipt(ctx, s.events, id, eventstoreMeta("verifier"), func(st receipt.State) ([]receipt.Event, error) {
		return commands.DecideProcessorUpdate(st, u)
	})
	changed := err == nil && res.Version > loaded.Version
	if changed {
		_ = s.waitReadable(ctx, id, res)
	}
	return changed, err
}

// Reconcile verifies every onramp attempt still open and started before now-minAge.
func (s *Server) Reconcile(ctx context.Context, minAge time.Duration) (checked, updated int, err error) {
	if s.processor == nil {
		return 0, 0, nil
	}
	ids, err := s.openAttempts.OpenOnrampAttempts(ctx, s.now().Add(-minAge), 500)
	if err != nil {
		return 0, 0, err
	}
	for _, id := range ids {
		checked++
		changed, err := s.verifyReceipt(ctx, id)
		if err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("receipt_id", id).Msg("reconcile: verification failed")
			continue
		}
		if changed {
			updated++
		}
	}
	return checked, updated, nil
}

func (s *Server) cronReconcile(c echo.Context) error {
	start := s.now()
	ctx := c.Request().Context()
	checked, updated, err := s.Reconcile(ctx, 0)
	if err != nil {
		return err
	}
	// Every notification with the pending-delivery marker is retried now; backoff paces only the ticker.
	tried, delivered, err := s.webhooks.ReconcileMarked(ctx, true)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "checked": checked, "updated": updated,
		"webhooksRetried": tried, "webhooksDelivered": delivered, "durationMs": s.now().Sub(start).Milliseconds()})
}

// OpenAttempts lists receipts whose onramp attempt is still open.
type OpenAttempts interface {
	OpenOnrampAttempts(ctx context.Context, before time.Time, limit int) ([]string, error)
}

func notFound(err error) error {
	if errors.Is(err, readmodels.ErrNotFound) {
		return receipt.ErrNotFound
	}
	return err
}

func eventstoreMeta(actor string) eventstore.Metadata {
	return eventstore.Metadata{Actor: actor, Source: actor}
}

// Reconciler is the scheduled reconciliation in the background: every interval it verifies
// onramp attempts open for longer than MinAge and retries marked webhook notifications whose
// backoff is due (POST /api/cron/reconcile does both at once, for everything).
type Reconciler struct {
	Server   *Server
	Interval time.Duration
	MinAge   time.Duration
	Log      zerolog.Logger
}

// Run verifies until ctx ends.
func (r Reconciler) Run(ctx context.Context) error {
	return every(ctx, r.Interval, func(ctx context.Context) {
		checked, updated, err := r.Server.Reconcile(r.Log.WithContext(ctx), r.MinAge)
		if err != nil {
			r.Log.Warn().Err(err).Msg("reconcile")
		} else if checked > 0 {
			r.Log.Info().Int("checked", checked).Int("updated", updated).Msg("reconciled open onramp attempts")
		}
		if tried, delivered, err := r.Server.webhooks.ReconcileMarked(ctx, false); err != nil {
			r.Log.Warn().Err(err).Msg("webhook reconciliation")
		} else if tried > 0 {
			r.Log.Info().Int("retried", tried).Int("delivered", delivered).Msg("retried marked webhook notifications")
		}
	})
}
