// Package webhooks delivers the receipt.status_updated notifications queued in the outbox: the
// Dispatcher worker (claim, sign, send, retry), its dialer that keeps production webhooks off
// internal addresses, and the one classification of those addresses (BlockedIP, PrivateHost)
// that the order-time URL check shares.
package webhooks

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/panics"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/readmodels"
)

// Outbox is the dispatcher's view of the webhook outbox.
type Outbox interface {
	Claim(ctx context.Context, states []string, ignoreSchedule bool, limit int, lease time.Duration) ([]readmodels.Claimed, error)
	ClaimShared(ctx context.Context, limit, perMerchant, perReceiver int, busy map[string]int, lease time.Duration) ([]readmodels.Claimed, error)
	ClaimMarked(ctx context.Context, all bool, run time.Time, limit int, lease time.Duration) ([]readmodels.Claimed, error)
	Complete(ctx context.Context, c readmodels.Claimed, a readmodels.Attempt, out readmodels.Outcome) error
	Release(ctx context.Context, c readmodels.Claimed) error
	RecordAttempt(ctx context.Context, a readmodels.Attempt) error
	MarkDelivered(ctx context.Context, id uuid.UUID, queuedKey, sentKey string) error
}

// SigningKeys returns the API key that signs a receipt's webhooks.
type SigningKeys interface {
	Get(ctx context.Context, receiptID string) (string, error)
	Open(receiptID string, nonce, sealed []byte) (string, error)
}

// DeliveryCounter counts attempts by outcome ("delivered", "failed_attempt").
type DeliveryCounter interface {
	Delivered(outcome string)
}

var (
	_ Outbox      = (*readmodels.Outbox)(nil)
	_ SigningKeys = (*secrets.WebhookKeys)(nil)
)

// Webhook delivery defaults (spec, Delivery and retry).
const (
	DefaultTimeout    = 5 * time.Second
	DefaultRetryDelay = 5 * time.Second
	markedRetention   = 72 * time.Hour // reconciliation gives up after 3 days
	leaseFor          = 30 * time.Second
	claimBatch        = 16
	workerInFlight    = 64 // one worker's attempts on the wire at once
	// merchantShare bounds one merchant's attempts on the wire at once, all workers together, of
	// its marked notifications and of its others each (readmodels.ShareKey); receiverShare bounds
	// those of one of its receivers (readmodels.ReceiverKey: the webhook URL's origin) within it.
	// A merchant whose receiver hangs, with a backlog, holds at most receiverShare places of a
	// class, and its other receivers keep merchantShare - receiverShare.
	merchantShare  = 48
	receiverShare  = 32
	reconcileBatch = 50
	// reconcilePass is how long a scheduled reconciliation pass (ReconcileMarked without all) keeps
	// claiming: less than the ticker's 30 s, so a backlog of hanging receivers (a batch takes the
	// 5 s timeout) leaves the pass's onramp reconciliation its turn at the next tick.
	reconcilePass = 20 * time.Second
	// recordSlots bounds the endpoint and subscription attempts being recorded at once (receipt
	// webhooks share two group commits): attempts that end together (hanging receivers reaching
	// the timeout) each took a connection of the pool the API serves from, all of them.
	recordSlots = 4
	// maxIdleConns bounds the keep-alive connections the client keeps to receivers, all hosts
	// together, and idleConnTimeout how long one is kept unused: whoever names webhook URLs
	// (receipts' webhook_url, endpoints) may name a new host each time and never close its side,
	// and without a bound every such connection was kept for ever.
	maxIdleConns    = 256
	idleConnTimeout = 90 * time.Second
	// maxResponseHeaders bounds what is read of a receiver's answer headers (only its status
	// counts): net/http reads up to 10 MB by default, per attempt, and hundreds run at once.
	maxResponseHeaders = 64 << 10
)

// Dispatcher delivers queued notifications: first attempt, one automatic retry after
// RetryDelay keeping the delivery id, then the pending-delivery marker that reconciliation
// retries with exponential backoff (a new delivery id each time) for up to 3 days.
type Dispatcher struct {
	Outbox     Outbox
	Keys       SigningKeys
	Events     commands.Store
	Log        zerolog.Logger
	Production bool            // https only and public addresses only, checked at send and connect time
	Timeout    time.Duration   // per attempt (default 5 s)
	RetryDelay time.Duration   // before the automatic retry (default 5 s)
	Workers    int             // concurrent claimers, each sending its claimed batch at once (default 8; negative: none)
	Metrics    DeliveryCounter // optional
	Now        func() time.Time
	// Endpoints, when set, are the webhook endpoints' messages (DESIGN 9): sent by one more
	// worker with this client, its address checks and timeout.
	Endpoints EndpointOutbox
	// Tracer, when set, gives each delivery a span and the receiver its traceparent header
	// (nil: none).
	Tracer trace.TracerProvider
	// Telling, when set, is called with the merchant before each receipt webhook or endpoint
	// message is sent: a merchant told of a status may read its receipts at once, so its reads
	// must see what it is told (serve: the replica router counts it as a writer).
	Telling func(merchant string)

	wake, endpointWake chan struct{}
	records            chan struct{}   // one token per recording in progress (recordSlots)
	merchants          *flying[string] // the workers' attempts in flight by merchant
	client             *http.Client
	// working says Run's workers are claiming: they take marked notifications whose backoff is
	// due (Outbox.ClaimShared), so the scheduled reconciliation pass leaves those to them.
	working atomic.Bool
	lease   time.Duration // how long a claim holds its notifications (leaseFor; tests shorten it)

	// receiptClaims, endpointClaims and subscriptionClaims are the senders' runs of failed claims
	// (Failing); the subscription sender sends through this dispatcher (SubscriptionSender.Via).
	receiptClaims, endpointClaims, subscriptionClaims *claimFailures
}

// Init fills defaults; call it once before use. It panics when Outbox, Keys or Events is
// missing: a wiring error.
func (d *Dispatcher) Init() *Dispatcher {
	if d.Outbox == nil || d.Keys == nil || d.Events == nil {
		panic("webhooks: Dispatcher needs Outbox, Keys and Events")
	}
	if d.Timeout == 0 {
		d.Timeout = DefaultTimeout
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
	if d.lease == 0 {
		d.lease = leaseFor
	}
	d.wake, d.endpointWake = make(chan struct{}, 1), make(chan struct{}, 1)
	d.records = make(chan struct{}, recordSlots)
	d.merchants = newFlying[string]()
	d.receiptClaims, d.endpointClaims = &claimFailures{what: "receipt webhooks"}, &claimFailures{what: "endpoint webhooks"}
	d.subscriptionClaims = &claimFailures{what: "subscription webhooks"}
	d.client = &http.Client{
		Timeout: d.Timeout,
		Transport: &http.Transport{DialContext: d.dial, MaxIdleConns: maxIdleConns, MaxIdleConnsPerHost: 128, IdleConnTimeout: idleConnTimeout,
			TLSHandshakeTimeout: d.Timeout, ResponseHeaderTimeout: d.Timeout, MaxResponseHeaderBytes: maxResponseHeaders},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, // redirects are not followed
	}
	return d
}

// Wake tells the workers that notifications may be due.
func (d *Dispatcher) Wake() {
	signal(d.wake)
	signal(d.endpointWake)
}

// Run sends due notifications until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	// A loop that panics (recovered, handed to the worker's owner) ends the others, and Run
	// returns the panic: the owner starts the dispatcher again, whole.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		mu       sync.Mutex
		panicked error
	)
	loop := func(f func()) {
		if err := panics.Catch(ctx, d.Log, f); err != nil {
			mu.Lock()
			panicked = cmp.Or(panicked, err)
			mu.Unlock()
			stop()
		}
	}
	done := make(chan struct{})
	if d.Workers > 0 {
		d.working.Store(true)
		defer d.working.Store(false)
	}
	if d.Endpoints != nil {
		go func() {
			defer func() { done <- struct{}{} }()
			loop(func() { d.workEndpoints(ctx) })
		}()
	}
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
			loop(func() { d.work(ctx, poll) })
		}()
	}
	for range d.Workers {
		<-done
	}
	if d.Endpoints != nil {
		<-done
	}
	if panicked != nil {
		return panicked
	}
	return ctx.Err()
}

func (d *Dispatcher) work(ctx context.Context, poll time.Duration) {
	// A merchant has at most merchantShare attempts in flight, all workers together (d.merchants),
	// of its marked notifications and as many of its others (readmodels.ShareKey), and one of its
	// receivers at most receiverShare of them (readmodels.ReceiverKey): a backlog of marked
	// retries to a hanging receiver does not hold its other receiver's first attempts, nor does a
	// backlog of first attempts. The attempts are recorded in shared commits (Outbox.Complete).
	sendLoop[readmodels.Claimed, string]{
		batch: claimBatch, inFlight: workerInFlight, share: merchantShare, keys: d.merchants,
		keysOf: func(c readmodels.Claimed) []string { return readmodels.ShareKeys(c.Merchant, c.State, c.URL) },
		claim: func(ctx context.Context, limit, share int, busy map[string]int) ([]readmodels.Claimed, error) {
			return d.Outbox.ClaimShared(ctx, limit, share, receiverShare, busy, d.lease)
		},
		attempt: func(ctx context.Context, c readmodels.Claimed) { d.Deliver(ctx, c) },
		wake:    d.wake, poll: poll,
		full: d.Wake, // more may be due: let another worker claim too
		log:  d.Log, what: "webhook claim", fails: d.receiptClaims,
	}.run(ctx)
}

// ReconcileMarked retries notifications with the pending-delivery marker: those due by their
// backoff, or all of them with all (POST /api/cron/reconcile). A run tries each notification at
// most once: it claims batch after batch, never one attempted since the run began
// (Outbox.ClaimMarked), so receivers that keep failing do not keep it going. Without all (the
// scheduled pass, every 30 s) it stops claiming after reconcilePass, leaving the rest due for the
// next pass. It took one batch: at most 50 notifications per pass, so with more due (one
// merchant's receiver down for an hour) the backoff documented (1 min, 2 min, 4 min ...) slipped
// by hours for every merchant's marked webhooks, queued behind in due order.
//
// While Run's workers claim, the scheduled pass tries nothing: the workers take marked
// notifications as their backoff comes due, under the per-merchant share (merchantShare). The
// pass claims oldest due first with no share, so one merchant's backlog to a hanging receiver
// went before every other merchant's (10,000 due: about 25 minutes) and, beside the workers, had
// more than its share on the wire. A dispatcher without workers keeps the pass.
//
// A claimed batch goes out concurrently, as the workers' do: every attempt ends within Timeout,
// well inside the lease. Sent one after another, a batch outlived its lease after a few slow
// receivers, and another instance claimed and sent again what was still waiting its turn.
func (d *Dispatcher) ReconcileMarked(ctx context.Context, all bool) (tried, delivered int, err error) {
	if !all && d.working.Load() {
		return 0, 0, nil
	}
	var run time.Time // the database's time of the run's first claim
	start := d.Now()
	for {
		claimed, err := d.Outbox.ClaimMarked(ctx, all, run, reconcileBatch, d.lease)
		if err != nil {
			return tried, delivered, err
		}
		if len(claimed) > 0 && run.IsZero() {
			run = claimed[0].ClaimedAt
		}
		var (
			sent sync.WaitGroup
			mu   sync.Mutex
		)
		for _, c := range claimed {
			sent.Go(func() {
				defer panics.Recover(ctx, d.Log) // not counted; still leased, due again after the lease
				out := d.Deliver(ctx, c)
				mu.Lock()
				defer mu.Unlock()
				tried++
				if out.State == readmodels.NoteDelivered {
					delivered++
				}
			})
		}
		sent.Wait()
		// A scheduled pass ended by shutdown stops quietly: what it claimed was released.
		if len(claimed) < reconcileBatch || (!all && (ctx.Err() != nil || d.Now().Sub(start) >= reconcilePass)) {
			return tried, delivered, nil
		}
	}
}

// backoff is reconciliation's wait after its attempt-th failed attempt: 1 min doubling, at most 6 h.
func backoff(attempt int) time.Duration {
	if attempt > 12 {
		return 6 * time.Hour
	}
	return min(time.Minute<<attempt, 6*time.Hour)
}

// Deliver makes one attempt for a claimed notification, records it with the notification's
// next state and returns that outcome. A failure to record is logged, not returned: the lease
// runs out and the notification is claimed again. An attempt that failed because ctx ended (the
// service shutting down, a cancelled reconciliation request) is not the receiver's failure: it
// is not recorded, the lease is released, and the outcome keeps the claimed state.
func (d *Dispatcher) Deliver(ctx context.Context, c readmodels.Claimed) readmodels.Outcome {
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
	if d.Telling != nil {
		d.Telling(c.Merchant)
	}
	a := d.send(ctx, c, deliveryID, kind)
	if a.Error != "" && ctx.Err() != nil {
		d.release(ctx, func(ctx context.Context) error { return d.Outbox.Release(ctx, c) })
		return readmodels.Outcome{State: c.State, DeliveryID: deliveryID, NextAt: d.Now(), MarkedAt: c.MarkedAt}
	}
	// The schedule counts from the attempt's end, as an endpoint's does (attemptEndpoint): the
	// retry comes RetryDelay after the failure, however long the failed attempt took (counted
	// from its start, a slow first attempt brought the retry early).
	now := d.Now()
	out := readmodels.Outcome{DeliveryID: deliveryID, SentKey: a.IdempotencyKey, MarkedAt: c.MarkedAt}
	switch {
	case a.Error == "" && a.HTTPStatus != nil && *a.HTTPStatus/100 == 2:
		out.State, out.NextAt = readmodels.NoteDelivered, now
	case c.State == readmodels.NotePending:
		out.State, out.NextAt = readmodels.NoteRetrying, now.Add(d.RetryDelay)
	case c.State == readmodels.NoteRetrying:
		out.State, out.NextAt, out.MarkedAt = readmodels.NoteMarked, now.Add(backoff(0)), &now
	default:
		// Attempts counts the first attempt and the automatic retry: the first reconciliation
		// attempt (Attempts 2) waits backoff(1), 2 min, after the marker's 1 min.
		out.State, out.NextAt = readmodels.NoteMarked, now.Add(backoff(max(c.Attempts-1, 0)))
		if c.MarkedAt != nil && now.Sub(*c.MarkedAt) >= markedRetention {
			out.State = readmodels.NoteFailed
		}
	}
	if d.Metrics != nil {
		d.Metrics.Delivered(map[bool]string{true: "delivered", false: "failed_attempt"}[out.State == readmodels.NoteDelivered])
	}
	if err := d.Outbox.Complete(context.WithoutCancel(ctx), c, a, out); err != nil {
		d.Log.Error().Err(err).Str("receipt_id", c.ReceiptID).Msg("record webhook delivery")
	}
	return out
}

// record runs do, an attempt's recording, when one of recordSlots is free.
func (d *Dispatcher) record(do func() error) error {
	if d.records == nil { // not Init'ed (a test's bare dispatcher): unbounded
		return do()
	}
	d.records <- struct{}{}
	defer func() { <-d.records }()
	return do()
}

// release gives up a lease after ctx ended, in a few seconds of its own once one of recordSlots is
// free; a failure is logged (the lease runs out instead). At shutdown every attempt in flight is
// cut at once: released outside the slots, each took a connection of the pool at the same time.
func (d *Dispatcher) release(ctx context.Context, do func(context.Context) error) {
	err := d.record(func() error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return do(ctx)
	})
	if err != nil {
		d.Log.Warn().Err(err).Msg("release webhook lease")
	}
}

// Redeliver sends the receipt's current state again at once (new delivery id, the state's
// idempotency key) and records the attempt; a success closes the open notification. It returns
// the outbox's errors.
func (d *Dispatcher) Redeliver(ctx context.Context, c readmodels.Claimed) (readmodels.Attempt, error) {
	if d.Telling != nil { // as Deliver: it carries the newest state, read from the event log
		d.Telling(c.Merchant)
	}
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

// send posts the receipt's current state to the notification's URL, signed, and returns the
// attempt as it went.
func (d *Dispatcher) send(ctx context.Context, c readmodels.Claimed, deliveryID uuid.UUID, kind string) readmodels.Attempt {
	start := d.Now()
	a := readmodels.Attempt{ID: uuid.New(), NotificationID: c.ID, ReceiptID: c.ReceiptID, Merchant: c.Merchant, DeliveryID: deliveryID,
		URL: c.URL, AttemptedAt: start, Kind: kind, IdempotencyKey: readmodels.SpecKey(c.QueuedKey)} // until the state is loaded
	fail := func(err error) readmodels.Attempt {
		d.Log.Debug().Err(err).Str("receipt_id", c.ReceiptID).Msg("webhook delivery failed") // the detail stays with the operator
		a.Error, a.LatencyMS = deliveryError(err), int(d.Now().Sub(start).Milliseconds())
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
	// One moment for the body's timestamp and X-*-Timestamp: a receiver comparing them sees one.
	sentAt := d.Now()
	body, err := json.Marshal(readmodels.ReceiptWebhookOf(st, sentAt))
	if err != nil {
		return fail(err)
	}
	status, err := d.post(ctx, c.URL, body, []attribute.KeyValue{receiptAttr.String(c.ReceiptID), eventAttr.String(Event)}, func(h http.Header) {
		// Partner brands get their own prefix and user agent; the X-Service-* aliases remain.
		setHeaders(h, delivery{event: Event, brand: st.Receipt.BrandKey, body: body, secret: secret, id: deliveryID, key: a.IdempotencyKey, sentAt: sentAt})
	})
	a.HTTPStatus = status
	if err != nil {
		return fail(err)
	}
	a.LatencyMS = int(d.Now().Sub(start).Milliseconds())
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
