package webhooks

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"

	"github.com/payledger/payledger/internal/panics"
	"github.com/payledger/payledger/readmodels"
)

// EndpointOutbox is the dispatcher's view of the endpoint messages (readmodels.Endpoints).
type EndpointOutbox interface {
	ClaimMessages(ctx context.Context, limit, perEndpoint int, busy map[uuid.UUID]int, lease time.Duration) ([]readmodels.EndpointMessage, error)
	SecretsNow(ctx context.Context, m readmodels.EndpointMessage, now time.Time) (readmodels.Signing, error)
	RecordAttempt(ctx context.Context, a readmodels.EndpointAttempt) error
	CompleteMessage(ctx context.Context, a readmodels.EndpointAttempt, state string, next time.Time) error
	ReleaseMessage(ctx context.Context, m readmodels.EndpointMessage) error
}

var _ EndpointOutbox = (*readmodels.Endpoints)(nil)

// endpointBatch is how many messages one claim takes; they are sent concurrently, each within
// the client's timeout, well inside the lease.
const endpointBatch = 32

// endpointInFlight bounds the endpoint worker's attempts on the wire at once.
const endpointInFlight = 256

// endpointShare bounds one endpoint's attempts on the wire at once (and its messages in one
// claim): an endpoint whose receiver hangs, with a backlog, holds at most this many of the
// worker's places, not all of them.
const endpointShare = 8

// workEndpoints sends due endpoint messages until ctx ends: woken with the receipt
// notifications, and polling every 200 ms for retries and events recorded outside the
// projector (subscription charges, test events). It claims again as soon as it has room, while
// earlier attempts are still waiting for their receivers: waiting for a whole claim to finish
// let one hanging receiver hold every merchant's deliveries for the timeout. An endpoint has at
// most endpointShare attempts in flight, so one with a backlog does not take every place. On
// return no attempt is left running.
func (d *Dispatcher) workEndpoints(ctx context.Context) {
	sendLoop[readmodels.EndpointMessage, uuid.UUID]{
		batch: endpointBatch, inFlight: endpointInFlight, share: endpointShare, keys: newFlying[uuid.UUID](),
		keysOf: func(m readmodels.EndpointMessage) []uuid.UUID { return []uuid.UUID{m.EndpointID} },
		claim: func(ctx context.Context, limit, share int, busy map[uuid.UUID]int) ([]readmodels.EndpointMessage, error) {
			return d.Endpoints.ClaimMessages(ctx, limit, share, busy, d.lease)
		},
		attempt: func(ctx context.Context, m readmodels.EndpointMessage) {
			if err := d.attemptEndpoint(ctx, m); err != nil {
				d.Log.Warn().Err(err).Msg("endpoint webhooks")
			}
		},
		wake: d.endpointWake, poll: 200 * time.Millisecond,
		log: d.Log, what: "endpoint webhooks", fails: d.endpointClaims,
	}.run(ctx)
}

// SendEndpointsDue makes one attempt for up to one batch of due endpoint messages (at most
// endpointShare of one endpoint) and returns how many it claimed.
func (d *Dispatcher) SendEndpointsDue(ctx context.Context) (int, error) {
	list, err := d.Endpoints.ClaimMessages(ctx, endpointBatch, endpointShare, nil, d.lease)
	if err != nil {
		return 0, err
	}
	done := make(chan error, len(list))
	for _, m := range list {
		go func() {
			var err error
			if p := panics.Catch(ctx, d.Log, func() { err = d.attemptEndpoint(ctx, m) }); p != nil {
				err = p // the message stays leased: due again when the lease runs out
			}
			done <- err
		}()
	}
	var first error
	for range list {
		if err := <-done; err != nil && first == nil {
			first = err
		}
	}
	return len(list), first
}

// attemptEndpoint sends m once and records the attempt with the message's next state: the
// schedule of receipt webhooks (a retry after RetryDelay, then 1 min doubling up to 6 h), given
// up 3 days after the event was queued. Every attempt carries the event's webhook-id. An attempt
// that failed because ctx ended (shutdown) is not recorded: the lease is released.
func (d *Dispatcher) attemptEndpoint(ctx context.Context, m readmodels.EndpointMessage) error {
	kind := "first"
	if m.Attempts > 0 {
		kind = "retry"
	}
	a := d.SendEndpoint(ctx, m, kind)
	if a.Error != "" && ctx.Err() != nil {
		d.release(ctx, func(ctx context.Context) error { return d.Endpoints.ReleaseMessage(ctx, m) })
		return nil
	}
	now := d.Now()
	state, next := readmodels.NoteDelivered, now
	if a.Error != "" {
		state, next = readmodels.NotePending, now.Add(d.RetryDelay)
		if m.Attempts > 0 {
			next = now.Add(backoff(m.Attempts - 1))
		}
		if now.Sub(m.Created) >= markedRetention {
			state = readmodels.NoteFailed
		}
	}
	if err := d.record(func() error { return d.Endpoints.CompleteMessage(context.WithoutCancel(ctx), a, state, next) }); err != nil {
		return fmt.Errorf("record endpoint delivery: %w", err)
	}
	return nil
}

// SendEndpoint posts m to its endpoint, signed with the endpoint's secret (Standard Webhooks; for
// PreviousSecretLife after a rotation, with the old one too),
// through the dispatcher's client (its timeout; in production https and public addresses only),
// and returns the attempt as it went. Kind is first, retry or redeliver.
//
// The secrets are read just before the request is signed. A rotation committed after that read,
// while the request was on its way, gave the attempt the replaced secret's signature only, which a
// receiver switched to the new secret at once refuses; the message then waited for its retry (5 s,
// then 1 min doubling). So when the receiver answers outside 2xx, the secrets are read again and,
// if the current one is no longer the one signed with, the attempt is sent again at once, signed
// with the new secret (and the replaced one): the refused request is recorded as an attempt of its
// own and the attempt returned is the second. The endpoint row is not locked across the request,
// which would hold a rotation for up to the timeout.
func (d *Dispatcher) SendEndpoint(ctx context.Context, m readmodels.EndpointMessage, kind string) readmodels.EndpointAttempt {
	// The merchant is told first on every path, the manual redelivery's route included (see Telling).
	if d.Telling != nil {
		d.Telling(m.Merchant)
	}
	start := d.Now()
	a := readmodels.EndpointAttempt{ID: uuid.New(), EndpointID: m.EndpointID, EventID: m.EventID, Type: m.Type, AttemptedAt: start, Kind: kind}
	if err := d.checkURL(m.URL); err != nil {
		return d.failedAttempt(a, start, err)
	}
	body, err := StandardBody(m.Type, m.OccurredAt, m.Data)
	if err != nil {
		return d.failedAttempt(a, start, err)
	}
	// Read at send time, not from the claim: a rotation committed since the claim signs this
	// attempt too. After a rotation, the old secret's signature goes too (24 h).
	signing, err := d.Endpoints.SecretsNow(ctx, m, d.Now())
	if err != nil {
		return d.failedAttempt(a, start, err)
	}
	a.HTTPStatus, err = d.postSigned(ctx, m, body, signing)
	if err != nil && a.HTTPStatus != nil && ctx.Err() == nil {
		if again, rerr := d.Endpoints.SecretsNow(ctx, m, d.Now()); rerr == nil && again.Version != signing.Version {
			d.recordRefused(ctx, d.failedAttempt(a, start, err))
			start = d.Now()
			a = readmodels.EndpointAttempt{ID: uuid.New(), EndpointID: m.EndpointID, EventID: m.EventID, Type: m.Type, AttemptedAt: start, Kind: kind}
			a.HTTPStatus, err = d.postSigned(ctx, m, body, again)
		}
	}
	if err != nil {
		return d.failedAttempt(a, start, err)
	}
	a.LatencyMS = int(d.Now().Sub(start).Milliseconds())
	return a
}

// failedAttempt is a with err's merchant-facing category and its latency since start; the
// detail stays with the operator (debug log).
func (d *Dispatcher) failedAttempt(a readmodels.EndpointAttempt, start time.Time, err error) readmodels.EndpointAttempt {
	d.Log.Debug().Err(err).Str("endpoint_id", a.EndpointID.String()).Msg("endpoint delivery failed")
	a.Error, a.LatencyMS = deliveryError(err), int(d.Now().Sub(start).Milliseconds())
	return a
}

// postSigned posts body to m's endpoint signed with signing's secrets, timestamped now, and
// returns the receiver's status (nil when none came).
func (d *Dispatcher) postSigned(ctx context.Context, m readmodels.EndpointMessage, body []byte, signing readmodels.Signing) (*int, error) {
	id, sentAt := "msg_"+m.EventID.String(), d.Now()
	sig, err := StandardSignatures(signing.Secrets, id, sentAt.Unix(), body)
	if err != nil { // a bad secret sends nothing unsigned
		return nil, err
	}
	return d.post(ctx, m.URL, body, []attribute.KeyValue{eventAttr.String(m.Type), attribute.String("payledger.event_id", m.EventID.String())},
		func(h http.Header) { setSignedHeaders(h, id, sentAt, sig) })
}

// recordRefused records a refused request that is sent again at once (SendEndpoint); a failure
// is logged (the log then misses that request, the message's outcome is the second's).
func (d *Dispatcher) recordRefused(ctx context.Context, a readmodels.EndpointAttempt) {
	if err := d.record(func() error { return d.Endpoints.RecordAttempt(context.WithoutCancel(ctx), a) }); err != nil {
		d.Log.Warn().Err(err).Msg("record endpoint attempt")
	}
}
