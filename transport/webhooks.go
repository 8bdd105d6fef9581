package transport

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// WebhookEvent is the one event kind sent.
const WebhookEvent = "receipt.status_updated"

// DefaultBrandKey is the brand of merchants without a partner brand.
const DefaultBrandKey = "payledger"

// Outbox is the dispatcher's and the delivery log's view of the webhook outbox.
type Outbox interface {
	Claim(ctx context.Context, states []string, ignoreSchedule bool, limit int, lease time.Duration) ([]readmodels.Claimed, error)
	Complete(ctx context.Context, c readmodels.Claimed, a readmodels.Attempt, out readmodels.Outcome) error
	Deliveries(ctx context.Context, merchant, receiptID string, limit int, cursor string) ([]readmodels.Attempt, string, error)
	NotificationOfDelivery(ctx context.Context, id uuid.UUID) (readmodels.Claimed, error)
	RecordAttempt(ctx context.Context, a readmodels.Attempt) error
	MarkDelivered(ctx context.Context, id uuid.UUID, queuedKey, sentKey string) error
}

// SigningKeys returns the API key that signs a receipt's webhooks.
type SigningKeys interface {
	Get(ctx context.Context, receiptID string) (string, error)
	Open(receiptID string, nonce, sealed []byte) (string, error)
}

// Webhook delivery defaults (spec, Delivery and retry).
const (
	DefaultWebhookTimeout = 5 * time.Second
	DefaultRetryDelay     = 5 * time.Second
	markedRetention       = 72 * time.Hour // reconciliation gives up after 3 days
	leaseFor              = 30 * time.Second
	claimBatch            = 16
)

// Dispatcher delivers queued notifications: first attempt, one automatic retry after
// RetryDelay keeping the delivery id, then the pending-delivery marker that reconciliation
// retries with exponential backoff (a new delivery id each time) for up to 3 days.
type Dispatcher struct {
	Outbox     Outbox
	Keys       SigningKeys
	Events     commands.Store
	Log        zerolog.Logger
	Production bool          // https only and public addresses only, checked at connect time
	Timeout    time.Duration // per attempt (default 5 s)
	RetryDelay time.Duration // before the automatic retry (default 5 s)
	Workers    int           // concurrent claimers, each sending its claimed batch at once (default 8; negative: none)
	Metrics    *Metrics      // optional
	Now        func() time.Time

	wake   chan struct{}
	client *http.Client
}

// Init fills defaults; call it once before use.
func (d *Dispatcher) Init() *Dispatcher {
	if d.Timeout == 0 {
		d.Timeout = DefaultWebhookTimeout
	}
	if d.RetryDelay == 0 {
		d.RetryDelay = DefaultRetryDelay
	}
	if d.Workers == 0 {
		d.Workers = 8
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	d.wake = make(chan struct{}, 1)
	d.client = &http.Client{
		Timeout:       d.Timeout,
		Transport:     &http.Transport{DialContext: d.dial, MaxIdleConnsPerHost: 128, TLSHandshakeTimeout: d.Timeout, ResponseHeaderTimeout: d.Timeout},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, // redirects are not followed
	}
	return d
}

// Wake tells the workers that notifications may be due.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

var errBlockedAddress = errors.New("webhook address not allowed: loopback, private, link-local or unspecified")

func blockedIP(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast()
}

// dial resolves the host itself and, in production, refuses any address inside, so that a name
// that resolves (or re-resolves) to an internal address never gets a connection.
func (d *Dispatcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	var dialer net.Dialer
	var lastErr error = errBlockedAddress
	for _, ip := range ips {
		if d.Production && blockedIP(ip.IP) {
			continue
		}
		conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.IP.String(), port))
		if err == nil {
			return conn, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// Run sends due notifications until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	done := make(chan struct{})
	for i := range d.Workers {
		// One worker polls for due retries every 100 ms; the others wait for a wake-up (new
		// notifications, or a full claim) and poll only every second, so an idle dispatcher
		// costs the database ~20 queries a second, not 80.
		poll := time.Second
		if i == 0 {
			poll = 100 * time.Millisecond
		}
		go func() {
			defer func() { done <- struct{}{} }()
			d.work(ctx, poll)
		}()
	}
	for range d.Workers {
		<-done
	}
	return ctx.Err()
}

func (d *Dispatcher) work(ctx context.Context, poll time.Duration) {
	for ctx.Err() == nil {
		claimed, err := d.Outbox.Claim(ctx, []string{readmodels.NotePending, readmodels.NoteRetrying}, false, claimBatch, leaseFor)
		if err != nil && ctx.Err() == nil {
			d.Log.Warn().Err(err).Msg("webhook claim")
		}
		if len(claimed) == claimBatch {
			d.Wake() // more may be due: let another worker claim too
		}
		// A claimed batch goes out concurrently: one slow receiver holds up only its own
		// notification, and the attempts are recorded in shared commits (Outbox.Complete).
		var sent sync.WaitGroup
		for _, c := range claimed {
			sent.Go(func() { d.deliver(ctx, c) })
		}
		sent.Wait()
		if len(claimed) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
		case <-d.wake:
		case <-time.After(poll):
		}
	}
}

// ReconcileMarked retries notifications with the pending-delivery marker: those due by their
// backoff, or all of them with all (POST /api/cron/reconcile).
func (d *Dispatcher) ReconcileMarked(ctx context.Context, all bool) (tried, delivered int, err error) {
	for {
		claimed, err := d.Outbox.Claim(ctx, []string{readmodels.NoteMarked}, all, 50, leaseFor)
		if err != nil {
			return tried, delivered, err
		}
		for _, c := range claimed {
			tried++
			if out := d.deliver(ctx, c); out.State == readmodels.NoteDelivered {
				delivered++
			}
		}
		if len(claimed) < 50 || !all {
			return tried, delivered, nil
		}
	}
}

func backoff(attempt int) time.Duration {
	if attempt > 12 {
		return 6 * time.Hour
	}
	return min(time.Minute<<attempt, 6*time.Hour)
}

// deliver makes one attempt for a claimed notification and records it.
func (d *Dispatcher) deliver(ctx context.Context, c readmodels.Claimed) readmodels.Outcome {
	now := d.Now()
	kind, deliveryID := "first", uuid.New()
	switch c.State {
	case readmodels.NoteRetrying:
		kind = "retry"
		if c.DeliveryID != nil {
			deliveryID = *c.DeliveryID // the automatic retry keeps the delivery id
		}
	case readmodels.NoteMarked:
		kind = "reconcile"
	}
	a := d.send(ctx, c, deliveryID, kind)
	out := readmodels.Outcome{DeliveryID: deliveryID, SentKey: a.IdempotencyKey, MarkedAt: c.MarkedAt}
	switch {
	case a.Error == "" && a.HTTPStatus != nil && *a.HTTPStatus/100 == 2:
		out.State, out.NextAt = readmodels.NoteDelivered, now
	case c.State == readmodels.NotePending:
		out.State, out.NextAt = readmodels.NoteRetrying, now.Add(d.RetryDelay)
	case c.State == readmodels.NoteRetrying:
		out.State, out.NextAt, out.MarkedAt = readmodels.NoteMarked, now.Add(backoff(0)), &now
	default:
		out.State, out.NextAt = readmodels.NoteMarked, now.Add(backoff(c.Attempts))
		if c.MarkedAt != nil && now.Sub(*c.MarkedAt) >= markedRetention {
			out.State = readmodels.NoteFailed
		}
	}
	d.Metrics.Delivered(map[bool]string{true: "delivered", false: "failed_attempt"}[out.State == readmodels.NoteDelivered])
	if err := d.Outbox.Complete(context.WithoutCancel(ctx), c, a, out); err != nil {
		d.Log.Error().Err(err).Str("receipt_id", c.ReceiptID).Msg("record webhook delivery")
	}
	return out
}

// send posts the receipt's current state to the notification's URL, signed, and returns the
// attempt as it went.
func (d *Dispatcher) send(ctx context.Context, c readmodels.Claimed, deliveryID uuid.UUID, kind string) readmodels.Attempt {
	start := d.Now()
	a := readmodels.Attempt{ID: uuid.New(), NotificationID: c.ID, ReceiptID: c.ReceiptID, Merchant: c.Merchant, DeliveryID: deliveryID,
		URL: c.URL, AttemptedAt: start, Kind: kind, IdempotencyKey: c.QueuedKey}
	fail := func(err error) readmodels.Attempt {
		a.Error, a.LatencyMS = err.Error(), int(d.Now().Sub(start).Milliseconds())
		return a
	}
	st, err := d.receiptState(ctx, c)
	if err != nil {
		return fail(fmt.Errorf("load receipt: %w", err))
	}
	a.IdempotencyKey, a.StatusSent = st.IdempotencyKey(), string(st.Status)
	var secret string
	if c.KeySealed != nil {
		secret, err = d.Keys.Open(c.ReceiptID, c.KeyNonce, c.KeySealed)
	} else {
		secret, err = d.Keys.Get(ctx, c.ReceiptID)
	}
	if err != nil {
		return fail(fmt.Errorf("no signing key for this receipt: %w", err))
	}
	if err := d.checkURL(c.URL); err != nil {
		return fail(err)
	}
	body, err := json.Marshal(webhookPayload(st, d.Now()))
	if err != nil {
		return fail(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return fail(err)
	}
	sentAt := d.Now()
	setWebhookHeaders(req.Header, "Service", "Service-Webhook/1.0", body, secret, deliveryID, a.IdempotencyKey, sentAt)
	if brand := st.Receipt.BrandKey; brand != "" && brand != DefaultBrandKey {
		// Partner brands get their own prefix and user agent; the X-Service-* aliases remain.
		name := strings.ToUpper(brand[:1]) + brand[1:]
		setWebhookHeaders(req.Header, name, name+"-Webhook/1.0", body, secret, deliveryID, a.IdempotencyKey, sentAt)
	}
	resp, err := d.client.Do(req)
	a.LatencyMS = int(d.Now().Sub(start).Milliseconds())
	if err != nil {
		return fail(err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	code := resp.StatusCode
	a.HTTPStatus = &code
	if code/100 != 2 {
		a.Error = "receiver answered " + strconv.Itoa(code)
	}
	return a
}

// receiptState is the state claimed with the notification, or the event stream's when the
// claim carried none (redelivery).
func (d *Dispatcher) receiptState(ctx context.Context, c readmodels.Claimed) (receipt.State, error) {
	if c.StateJSON != nil {
		var st receipt.State
		if err := json.Unmarshal(c.StateJSON, &st); err == nil && st.Exists {
			return st, nil
		}
	}
	loaded, err := commands.LoadReceipt(ctx, d.Events, c.ReceiptID)
	return loaded.State, err
}

func (d *Dispatcher) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return errors.New("webhook URL is not http(s)")
	}
	if d.Production && u.Scheme != "https" {
		return errors.New("webhook URL must use https in production")
	}
	return nil
}

// webhookPayload is the spec's payload of the receipt's current state.
func webhookPayload(st receipt.State, now time.Time) map[string]any {
	p := statusView(st, "")
	delete(p, "webhookDelivery")
	p["event"] = WebhookEvent
	p["idempotencyKey"] = st.IdempotencyKey()
	p["timestamp"] = now.UnixMilli()
	return p
}

// SignBody is the X-Service-Signature value: sha256= and the hex HMAC-SHA256 of the exact body.
func SignBody(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func setWebhookHeaders(h http.Header, prefix, userAgent string, body []byte, secret string, deliveryID uuid.UUID, key string, now time.Time) {
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	h.Set("X-"+prefix+"-Signature", SignBody(secret, body))
	h.Set("X-"+prefix+"-Event", WebhookEvent)
	h.Set("X-"+prefix+"-Delivery", deliveryID.String())
	h.Set("X-"+prefix+"-Idempotency-Key", key)
	h.Set("X-"+prefix+"-Timestamp", strconv.FormatInt(now.UnixMilli(), 10))
}

// Redeliver sends the receipt's current state again at once (new delivery id, the state's
// idempotency key) and records the attempt; a success closes the open notification.
func (d *Dispatcher) Redeliver(ctx context.Context, c readmodels.Claimed) (readmodels.Attempt, error) {
	a := d.send(ctx, c, uuid.New(), "redeliver")
	if err := d.Outbox.RecordAttempt(ctx, a); err != nil {
		return a, err
	}
	if a.Error == "" {
		if err := d.Outbox.MarkDelivered(ctx, c.ID, c.QueuedKey, a.IdempotencyKey); err != nil {
			return a, err
		}
	}
	return a, nil
}

// deliveryView renders a delivery attempt for the delivery log.
func deliveryView(a readmodels.Attempt) map[string]any {
	return map[string]any{
		"id": a.ID, "receiptId": a.ReceiptID, "deliveryId": a.DeliveryID, "idempotencyKey": a.IdempotencyKey, "status": a.StatusSent,
		"url": a.URL, "attemptedAt": a.AttemptedAt.UnixMilli(), "httpStatus": a.HTTPStatus, "latencyMs": a.LatencyMS,
		"error": nullable(a.Error), "kind": a.Kind, "succeeded": a.Error == "",
	}
}

// WebhookSender is what the HTTP layer needs of the dispatcher.
type WebhookSender interface {
	ReconcileMarked(ctx context.Context, all bool) (tried, delivered int, err error)
	Redeliver(ctx context.Context, c readmodels.Claimed) (readmodels.Attempt, error)
}

func (s *Server) listDeliveries(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	limit, err := intParam(c, "limit", 25, 1, 100)
	if err != nil {
		return err
	}
	list, next, err := s.outbox.Deliveries(c.Request().Context(), p.Wallet, c.QueryParam("receiptId"), limit, c.QueryParam("cursor"))
	if errors.Is(err, readmodels.ErrBadCursor) {
		return InvalidInput("cursor is not one this API issued")
	}
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(list))
	for i, a := range list {
		out[i] = deliveryView(a)
	}
	return c.JSON(http.StatusOK, map[string]any{"deliveries": out, "next": nullable(next)})
}

func (s *Server) redeliver(c echo.Context) error {
	sess, _ := SessionFrom(c)
	notFound := NewError(http.StatusNotFound, "not_found", "Delivery not found")
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return notFound
	}
	n, err := s.outbox.NotificationOfDelivery(c.Request().Context(), id)
	if errors.Is(err, readmodels.ErrNotFound) || (err == nil && n.Merchant != sess.Wallet && !slices.Contains(sess.Roles, RoleAdmin)) {
		return notFound
	}
	if err != nil {
		return err
	}
	a, err := s.webhooks.Redeliver(c.Request().Context(), n)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": a.Error == "", "delivery": deliveryView(a)})
}
