package transport

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// waitChanges waits until the receipts read model holds each change (read-your-writes).
func (s *Server) waitChanges(ctx context.Context, changes ...commands.ReceiptChange) {
	for _, ch := range changes {
		_ = s.waitReadable(ctx, ch.ReceiptID, ch.Result)
	}
}

// signatureTolerance is how far a processor event's timestamp may be from now.
const signatureTolerance = 5 * time.Minute

var errSig = NewError(http.StatusUnauthorized, "unauthorized", "Invalid processor signature")

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
		SessionID       string      `json:"sessionId"`
		ReceiptID       string      `json:"receiptId"`
		AttemptID       string      `json:"attemptId"`
		Status          string      `json:"status"`
		ErrorCode       string      `json:"errorCode"`
		RequestID       string      `json:"requestId"`
		TransactionHash string      `json:"transactionHash"`
		WalletAddress   string      `json:"walletAddress"`
		SourceAmountUSD json.Number `json:"sourceAmountUsd"`
	} `json:"data"`
}

// maxProcessorEventBytes bounds a processor event: they are a few hundred bytes.
const maxProcessorEventBytes = 64 << 10

func (s *Server) processorWebhook(c echo.Context) error {
	// Before the body is read: a blocked client address, a missing or malformed signature header.
	if err := s.authGate(c); err != nil {
		return err
	}
	header := c.Request().Header.Get("Processor-Signature")
	if !strings.Contains(header, "t=") || !strings.Contains(header, "v1=") {
		return s.authFailed(c, errSig)
	}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, maxProcessorEventBytes)
	raw, err := readBody(c)
	if err != nil {
		return err
	}
	if err := s.verifyProcessorSignature(header, raw); errors.Is(err, errSig) {
		return s.authFailed(c, err)
	} else if err != nil {
		return err
	}
	var ev processorEvent
	if err := decodeEvent(raw, &ev); err != nil {
		return err // invalid UTF-8 included: refused, not stored (docs/decisions.md)
	}
	d, ctx := ev.Data, c.Request().Context()
	out, err := s.cmd.ApplyProcessorEvent.Handle(ctx, commands.ApplyProcessorEvent{EventID: ev.ID, Created: ev.Created, SessionID: d.SessionID,
		ReceiptID: d.ReceiptID, AttemptID: d.AttemptID, Status: d.Status, ErrorCode: d.ErrorCode, RequestID: d.RequestID,
		TransactionHash: d.TransactionHash, WalletAddress: d.WalletAddress, SourceAmountUSD: d.SourceAmountUSD.String(), Body: raw,
		Meta: s.metadata(c, "processor")})
	switch {
	case err != nil:
		return err
	case out.Duplicate:
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "duplicate": true})
	case out.Unhandled != "":
		// A refund or a dispute at the processor moves money this service does not see: kept,
		// answered 2xx so the processor stops retrying, and an operator is told.
		zerolog.Ctx(ctx).Error().Str("event_id", ev.ID).Str("status", out.Unhandled).Str("receipt_id", d.ReceiptID).
			Str("session_id", d.SessionID).Msg("processor event with a status this version does not act on: kept in processor_events, nothing applied; check it at the processor")
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "stored": true})
	case out.Stored:
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "stored": true})
	}
	if out.Result.Version > 0 {
		s.waitChanges(ctx, commands.ReceiptChange{ReceiptID: d.ReceiptID, Result: out.Result})
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

func (s *Server) startOnramp(c echo.Context) error {
	ctx := c.Request().Context()
	out, err := s.cmd.StartOnramp.Handle(ctx, commands.StartOnramp{ReceiptID: c.Param("id"), Meta: s.metadata(c, "customer")})
	if err != nil {
		return err
	}
	s.waitChanges(ctx, commands.ReceiptChange{ReceiptID: c.Param("id"), Result: out.Result})
	// amountUsd: what the session asks for, what is still due (an underpaid receipt: the rest).
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "attemptId": out.AttemptID, "processorSessionId": out.SessionID, "redirectUrl": out.RedirectURL,
		"amountUsd": json.Number(out.AmountUSD.String())})
}

type telemetryRequest struct {
	Event     string `json:"event"`
	AttemptID string `json:"attemptId"`
	Code      string `json:"code"` // optional: the failure-catalog code the page showed
}

func (s *Server) telemetry(c echo.Context) error {
	var req telemetryRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	out, err := s.cmd.RecordTelemetry.Handle(ctx, commands.RecordTelemetry{ReceiptID: c.Param("id"), Event: req.Event, AttemptID: req.AttemptID, Code: req.Code,
		Meta: s.metadata(c, "customer")})
	if err != nil {
		return err
	}
	if out.Verified != nil {
		s.waitChanges(ctx, *out.Verified)
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
	ctx := c.Request().Context()
	out, err := s.cmd.SubmitWalletPayment.Handle(ctx, commands.SubmitWalletPayment{ReceiptID: c.Param("id"), Token: req.Token,
		TransactionHash: req.TransactionHash, BuyerWallet: req.BuyerWallet, Meta: s.metadata(c, "customer")})
	if err != nil {
		return err
	}
	if out.Result.Position != (eventstore.Position{}) {
		s.waitChanges(ctx, commands.ReceiptChange{ReceiptID: c.Param("id"), Result: out.Result})
	}
	// A hint (DESIGN 9, 10): paid comes only from the chain's view of the receipt's deposit
	// address; waiting: its transaction is not mined yet, and it is checked once it is.
	body := map[string]any{"ok": true, "status": string(out.Status), "attemptId": out.AttemptID, "waiting": out.Waiting}
	if out.Reverted {
		body["code"] = commands.CodeTxReverted
	}
	return c.JSON(http.StatusOK, body)
}

func (s *Server) cronReconcile(c echo.Context) error {
	start := s.now()
	ctx := c.Request().Context()
	done, err := s.cmd.ReconcileOnramp.Handle(ctx, commands.ReconcileOnramp{})
	if err != nil {
		return err
	}
	s.waitChanges(ctx, done.Changes...)
	// Every notification with the pending-delivery marker is retried now; backoff paces only the ticker.
	tried, delivered, err := s.webhooks.ReconcileMarked(ctx, true)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "checked": done.Checked, "updated": done.Updated,
		"webhooksRetried": tried, "webhooksDelivered": delivered, "durationMs": s.now().Sub(start).Milliseconds()})
}
