package transport

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/ratelimit"
)

// Pace of the merchant event stream (GET /api/webhooks/stream): the event log is read every
// streamPoll (an indexed range read per stream); a comment keeps proxies from closing an idle
// stream; a stream ends after eventsLifetime and its client resumes with Last-Event-ID.
const (
	streamPoll     = 500 * time.Millisecond
	streamBatch    = 100
	streamsPerUser = 5 // concurrent streams of one merchant
	// streamsPerInstance bounds the merchant streams open on one instance, whichever merchants
	// opened them. Any wallet signs in as a merchant (a nonce and a login, at the public rate),
	// so the per-merchant bound alone let one client hold any number of streams by signing in
	// new wallets, each stream a connection, two goroutines and a read of the event log every
	// streamPoll for eventsLifetime (1,000 streams: 2,000 reads a second). The payment page's
	// streams are bounded per instance likewise (portal: 2,000, each read only when announced).
	streamsPerInstance = 1000
	// streamsPerAddress bounds the merchant streams one client address holds, whichever merchants
	// it signed in as: without it one client signing in new wallets took all streamsPerInstance.
	// An integrator's server streaming many merchants' events from one address holds up to 50.
	streamsPerAddress = 50
)

// slotRetry is when a client refused a stream or export slot may try again (the spec's resetAt
// on 429): a slot frees when another stream or export ends, which nobody can tell in advance, so
// this is a pause long enough not to spin and short enough to take a freed slot soon.
const slotRetry = 5 * time.Second

// NoSlot is the 429 refusing a stream or export slot at now, in the spec's envelope with resetAt.
func NoSlot(message string, now time.Time) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: message,
		Extra: map[string]any{"resetAt": now.Add(slotRetry).UnixMilli()}}
}

// noSlot is NoSlot on the server's clock.
func (s *Server) noSlot(message string) *Error { return NoSlot(message, s.now()) }

// Slots counts the open long-lived requests (streams, exports) of each key (a merchant, a client
// address): at most Max each (0: streamsPerUser) and at most Total on the instance (0: no
// instance bound). A client address taken with TakeAddress is also counted by its network.
type Slots struct {
	Max, Total int
	mu         sync.Mutex
	all        int
	open       map[string]int
}

// Take takes one of key's slots; false when none is left (for key or on the instance).
func (s *Slots) Take(key string) bool { return s.takeWithin(key, s.Total) }

// takeWithin is Take with total the instance bound (0: none).
func (s *Slots) takeWithin(key string, total int) bool { return s.take(total, s.keyOf(key)) }

// TakeAddress is Take for a client address (ClientAddress). An IPv6 client, counted by its /64,
// also takes one of the slots of the /56 around it, which holds ratelimit.WiderMultiple times Max,
// all its /64s together, and of the /48, WiderMultiple times the /56's, as the rate limits count
// it (ratelimit.Address.Buckets): a /56 holder (a common residential allocation) opening streams
// from each of its 256 /64s in turn held 256 times the per-address bound. A slot it takes is
// given back with GiveAddress.
func (s *Slots) TakeAddress(addr ratelimit.Address) bool {
	return s.take(s.Total, s.addressKeys(addr)...)
}

// GiveAddress gives back a slot TakeAddress took for addr (once per TakeAddress).
func (s *Slots) GiveAddress(addr ratelimit.Address) { s.give(s.addressKeys(addr)...) }

// Give gives back a slot Take took for key (once per Take).
func (s *Slots) Give(key string) { s.give(s.keyOf(key)) }

// keyOf is the one key a slot of a merchant (or any key but an address) counts against.
func (s *Slots) keyOf(key string) ratelimit.Bucket {
	return ratelimit.Bucket{Key: key, Limit: cmp.Or(s.Max, streamsPerUser)}
}

// addressKeys are the keys a slot of addr counts against: its own, and the networks around an
// IPv6 /64 (named "addr:" and the prefix, so no merchant's key is the same).
func (s *Slots) addressKeys(addr ratelimit.Address) []ratelimit.Bucket {
	return addr.Buckets("addr", cmp.Or(s.Max, streamsPerUser))
}

// take takes a slot of every key, or none when one of them has none left or the instance holds
// total (0: no instance bound).
func (s *Slots) take(total int, keys ...ratelimit.Bucket) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = map[string]int{}
	}
	if total > 0 && s.all >= total {
		return false
	}
	for _, k := range keys {
		if s.open[k.Key] >= k.Limit {
			return false
		}
	}
	for _, k := range keys {
		s.open[k.Key]++
	}
	s.all++
	return true
}

// give gives back the slot take took of every key.
func (s *Slots) give(keys ...ratelimit.Bucket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all--
	for _, k := range keys {
		if s.open[k.Key]--; s.open[k.Key] <= 0 {
			delete(s.open, k.Key)
		}
	}
}

// TakeStreamSlot takes one of merchant's stream slots for a stream (/api/webhooks/stream, the
// dashboard's live list): every stream a merchant opens counts against the same streamsPerUser,
// whichever route opened it, since each holds a goroutine, a watch and a connection for up to
// eventsLifetime; and at most streamsPerInstance are open on the instance. It returns the
// give-back, which the handler calls (once) when the stream ends, or, when none is left, the 429
// /api/webhooks/stream answers (the envelope with resetAt). A client address holds at most
// streamsPerAddress of them, whichever merchants it opened them as, and an IPv6 client's /56 at
// most ratelimit.WiderMultiple times that, its /48 WiderMultiple times the /56's (Slots.TakeAddress).
func (s *Server) TakeStreamSlot(c echo.Context, merchant string) (func(), error) {
	addr := ClientAddress(c)
	if !s.streamAddrs.TakeAddress(addr) {
		return nil, s.noSlot("Too many open event streams from this client address or its network")
	}
	if !s.streams.takeWithin(merchant, streamsPerInstance) {
		s.streamAddrs.GiveAddress(addr)
		return nil, s.noSlot("Too many open event streams for this merchant, or on this instance")
	}
	return sync.OnceFunc(func() { s.streams.Give(merchant); s.streamAddrs.GiveAddress(addr) }), nil
}

// streamStart is the event id a stream resumes after: the client's Last-Event-ID, else the
// merchant's newest event (a new stream sends only what happens from now on).
//
// An id past the end of the log was never sent by it: the client read a log that has since been
// reset or restored from a backup (a development database made anew, a recovery), whose new
// events take the ids again. Resumed after it, the stream sent none of them until the log passed
// the id, and the client was told nothing; it is refused (400) like any id the stream never sent,
// so the client starts again.
//
// An id before the log's pruned start (events are kept 30 days, webhooks.EventRetention) is
// refused the same way: the events after it may be gone, and resumed after it the stream sent
// what was left as if nothing were missing.
func (s *Server) streamStart(c echo.Context, merchant string) (int64, error) {
	ctx, last := c.Request().Context(), c.Request().Header.Get("Last-Event-ID")
	if last == "" {
		// Not before the pruned start: the stream announces where it starts (eventStream), and a
		// client resuming from a merchant's newest event older than that would be refused.
		newest, err := s.endpoints.LastSeq(ctx, merchant)
		if err != nil {
			return 0, err
		}
		pruned, err := s.endpoints.PrunedThrough(ctx)
		return max(newest, pruned), err
	}
	n, err := strconv.ParseInt(last, 10, 64)
	if err != nil || n < 0 {
		return 0, InvalidInput("Last-Event-ID must be an event id this stream sent")
	}
	end, err := s.endpoints.LogEnd(ctx)
	if err != nil {
		return 0, err
	}
	if n > end {
		return 0, InvalidInput("Last-Event-ID is past the newest event: this log never sent it (it was reset or restored); reconnect without it")
	}
	pruned, err := s.endpoints.PrunedThrough(ctx)
	if err != nil {
		return 0, err
	}
	if n < pruned {
		return 0, InvalidInput("Last-Event-ID is older than the events kept (30 days): events after it are gone; reconnect without it and read what was missed from GET /api/receipts")
	}
	return n, nil
}

// eventStream sends the merchant's events as server-sent events: id is the event's position in
// the merchant's log, event its type, data {webhookId, type, body} (body: exactly what an endpoint
// receives). With Last-Event-ID it resumes after that position; without, it starts with the
// events recorded from now on.
//
// A failed write ends the stream (its client resumes from the last id it got), and so do the
// stream's end, its credential's refusal and the shutdown between two full batches: a stream
// resuming far back read its whole backlog, batch after batch, into a connection that was gone
// and past its lifetime, with every write failing.
func (s *Server) eventStream(c echo.Context) error {
	merchant := merchantOf(c)
	after, err := s.streamStart(c, merchant)
	if err != nil {
		return err
	}
	give, err := s.TakeStreamSlot(c, merchant)
	if err != nil {
		return err
	}
	defer give()
	ctx, stop := s.whileAuthorized(c) // ends with the key or session that opened it
	defer stop()
	out, err := openEventStream(c, after)
	if err != nil {
		return nil // the client is gone
	}
	end, beat := time.After(eventsLifetime), time.NewTicker(eventsHeartbeat)
	defer beat.Stop()
	for {
		list, err := s.endpoints.EventsAfter(ctx, merchant, after, streamBatch)
		if err != nil {
			return nil // the client resumes from its last id
		}
		if after, err = out.events(list, after); err != nil {
			return nil
		}
		if len(list) == streamBatch { // more is waiting: read on at once, unless the stream is over
			select {
			case <-ctx.Done():
				return nil
			case <-s.receiptWatch.done:
				return nil
			case <-end:
				return nil
			default:
				continue
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.receiptWatch.done:
			return nil
		case <-end:
			return nil
		case <-beat.C:
			if after, err = s.keepAlive(ctx, out, merchant, after); err != nil {
				return nil
			}
		case <-time.After(streamPoll):
		}
	}
}

// openEventStream answers c with an event stream whose first block is the position it starts
// after, as an id without data (no event: a client keeps it as its Last-Event-ID): a stream that
// ends before its first event (its lifetime, a dropped connection) is resumed from there, and the
// events recorded while the client reconnects reach it; before, it reconnected without an id and
// they were lost.
func openEventStream(c echo.Context, after int64) (sseWriter, error) {
	outliveTimeouts(c.Response()) // by design; the stream's lifetime bounds it
	h := c.Response().Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	c.Response().WriteHeader(http.StatusOK)
	out := sseWriter{w: c.Response()}
	return out, out.send(fmt.Sprintf("retry: 1000\nid: %d\n\n", after))
}

// sseWriter writes an event stream and flushes what it wrote, returning the first error: the
// client is gone (or stopped reading until the write deadline).
type sseWriter struct{ w http.ResponseWriter }

func (o sseWriter) send(text string) error {
	if _, err := io.WriteString(o.w, text); err != nil {
		return err
	}
	return http.NewResponseController(o.w).Flush()
}

// events writes list and flushes it; it returns the last id written (after, when none).
func (o sseWriter) events(list []readmodels.StoredEvent, after int64) (int64, error) {
	for _, e := range list {
		b, err := eventJSON(e)
		if err != nil {
			return after, err
		}
		if _, err := fmt.Fprintf(o.w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, b); err != nil {
			return after, err
		}
		after = e.Seq
	}
	if len(list) == 0 {
		return after, nil
	}
	return after, http.NewResponseController(o.w).Flush()
}

// keepAlive sends the stream's heartbeat: its position moved on to the log's end, as an id without
// data, when none of the merchant's events lie before it; else a comment. A quiet merchant's
// client otherwise kept the id of its last event (or of the stream's start) for as long as nothing
// happened to it: once the log was pruned past that id (30 days), its next reconnection was
// refused (400, "events after it are gone") though it had missed nothing, and a browser's
// EventSource does not reconnect after a 400. The end is read first: events are recorded in
// commit order (readmodels' log lock), so an event of the merchant not yet visible to the read
// after it comes later than that end and is still sent.
func (s *Server) keepAlive(ctx context.Context, out sseWriter, merchant string, after int64) (int64, error) {
	if end, err := s.endpoints.LogEnd(ctx); err == nil && end > after {
		if list, err := s.endpoints.EventsAfter(ctx, merchant, after, 1); err == nil && len(list) == 0 {
			return end, out.send(fmt.Sprintf("id: %d\n\n", end))
		}
	}
	return after, out.send(": keep-alive\n\n")
}
