package settlement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// DueWindows lists the receipts whose payment window ended at or before now and whose expiry is
// not recorded yet (pgstore.Receipts.DueWindows), oldest deadline first, after a cursor.
type DueWindows interface {
	DueWindows(ctx context.Context, now time.Time, after WindowCursor, limit int) ([]DueWindow, error)
}

// DueWindow is a receipt whose window ended, with the end (the due list's order).
type DueWindow struct {
	ReceiptID string
	ExpiresAt time.Time
}

// WindowCursor is a position in the due list's order (ExpiresAt, then ReceiptID); the zero
// cursor is before the first.
type WindowCursor struct {
	ExpiresAt time.Time
	ReceiptID string
}

// PaymentWindowConfig is the payment window process's configuration (cmd/payledger wires it).
type PaymentWindowConfig struct {
	// Window is PAYMENT_WINDOW: each receipt got it at generation as Generated.ExpiresAt, which is
	// what the process reads; it is here to be logged with the rest.
	Window time.Duration
	// Monitor is PAYMENT_MONITOR_WINDOW: how long after its window's end an expired receipt's
	// deposit address still pays it late (default 24h).
	Monitor time.Duration
	// Poll is how often the process looks for ended windows (default 1s; expiry is promised within
	// 5 s, so at most 4s).
	Poll time.Duration
	// Batch bounds the receipts one pass expires (default 500); the rest wait for the next pass.
	Batch int
}

// Defaults of PaymentWindowConfig (the window's own: receipt.DefaultPaymentWindow and
// receipt.DefaultMonitorWindow).
const (
	DefaultWindowPoll  = time.Second
	defaultWindowBatch = 500
	maxWindowPoll      = 4 * time.Second
)

// windowMeta is the metadata of the expiries the process records.
var windowMeta = eventstore.Metadata{Actor: "payment-window", Source: "payment window"}

// PaymentWindowHandler records the end of receipts' payment windows: every receipt not paid when
// its window ends (no onramp attempt open) records PaymentWindowExpired through the command
// pipeline (failed, PORTAL_SESSION_EXPIRED; the receipts projection queues its webhook as for any
// change of status). The aggregate decides (receipt.Expire): the read model only finds
// candidates. Two instances may pass over the same receipt: the append's expected version lets
// one record the expiry, the other reloads and finds nothing left to decide.
type PaymentWindowHandler struct {
	store commands.Store
	due   DueWindows
	cfg   PaymentWindowConfig
	now   func() time.Time
	// mu makes passes one at a time; cursor is where the next pass reads the due list: a full
	// page is followed by the next one, so that a page of receipts that cannot be decided (a
	// stream this build cannot read, during a rollback) does not stop every expiry behind it.
	mu     sync.Mutex
	cursor WindowCursor
	// nextReopen is when the next pass reopens the stuck ACH receipts (reopenStuck).
	nextReopen time.Time
	// clock and wall make the database's clock judge the passes (JudgedBy; nil: h.now).
	clock DatabaseClock
	wall  func() time.Time
	// ask asks the processor at a window's end (AskingAtEnd; nil: nothing is asked); askAfter is
	// when it is asked again after it did not answer, and down what it said then.
	ask      WindowEndAsk
	log      zerolog.Logger
	askAfter time.Time
	down     error
	// turn makes one instance at a time ask (AskingInTurn; nil: every instance asks).
	turn AskTurn
}

// NewPaymentWindowHandler returns the handler with cfg's zero fields at their defaults. It panics
// on a nil dependency.
func NewPaymentWindowHandler(store commands.Store, due DueWindows, cfg PaymentWindowConfig, now func() time.Time) *PaymentWindowHandler {
	if store == nil || due == nil || now == nil {
		panic("settlement.NewPaymentWindowHandler: nil dependency")
	}
	if cfg.Window <= 0 {
		cfg.Window = receipt.DefaultPaymentWindow
	}
	if cfg.Monitor <= 0 {
		cfg.Monitor = receipt.DefaultMonitorWindow
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultWindowPoll
	}
	cfg.Poll = min(cfg.Poll, maxWindowPoll)
	if cfg.Batch <= 0 {
		cfg.Batch = defaultWindowBatch
	}
	return &PaymentWindowHandler{store: store, due: due, cfg: cfg, now: now}
}

// Config is the configuration in effect (defaults filled in).
func (h *PaymentWindowHandler) Config() PaymentWindowConfig { return h.cfg }

// Run runs a pass every Poll until ctx ends; a failed pass is logged and retried.
func (h *PaymentWindowHandler) Run(ctx context.Context, log zerolog.Logger) error {
	log.Info().Dur("window", h.cfg.Window).Dur("monitor", h.cfg.Monitor).Dur("poll", h.cfg.Poll).Msg("payment window process started")
	for {
		if _, err := h.Handle(ctx); err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("payment window pass failed; retrying")
		}
		if err := sleep(ctx, h.cfg.Poll); err != nil {
			return err
		}
	}
}

// Handle runs one pass: it records the expiry of every receipt whose window has ended (at most
// Batch, the page after the last pass's when that one was full) and returns those it changed. A
// receipt that cannot be decided (a store error) does not hold up the others; the first such
// error is returned after the pass. The pass's time is the database's clock with JudgedBy. With a
// due list that has the stuck ACH receipts (WithStuckACH) it also reopens those, at most Batch
// every minute (stuckDue), and expires them when their window has ended. With AskingAtEnd, a
// receipt with an earlier onramp session is expired only once the processor has said nothing
// holds its window (askAtEnd), after the others. Errors: the database clock's, the due list's,
// the first receipt's, the held or unanswered receipts' (askAtEnd), the stuck list's.
func (h *PaymentWindowHandler) Handle(ctx context.Context) ([]commands.ReceiptChange, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now, err := h.passTime(ctx)
	if err != nil {
		return nil, err
	}
	page, err := h.due.DueWindows(ctx, now, h.cursor, h.cfg.Batch)
	if err != nil {
		return nil, err
	}
	if len(page) < h.cfg.Batch {
		h.cursor = WindowCursor{}
	} else {
		last := page[len(page)-1]
		h.cursor = WindowCursor{ExpiresAt: last.ExpiresAt, ReceiptID: last.ReceiptID}
	}
	ids := make([]string, len(page))
	for i, d := range page {
		ids[i] = d.ReceiptID
	}
	stuck, listErr := h.stuckDue(ctx, now)
	out, asks, err := h.decide(ctx, append(ids, stuck...), now)
	asked, askErr := h.askAtEnd(ctx, asks, now)
	return append(out, asked...), cmp.Or(err, askErr, listErr)
}

// decide records the expiry of each receipt of ids whose window has ended (receipt.Expire),
// after reopening one left ach_pending by a short ACH completion (receipt.ReopenStuckACH), and
// returns the receipts it changed, and those whose expiry waits for the processor's answer about
// their earlier onramp sessions (AskingAtEnd). Errors: ctx's, else the first receipt's.
func (h *PaymentWindowHandler) decide(ctx context.Context, ids []string, now time.Time) ([]commands.ReceiptChange, []windowAsk, error) {
	var out []commands.ReceiptChange
	var asks []windowAsk
	var first error
	for _, id := range ids {
		change, ask, err := h.expire(ctx, id, now, false)
		switch {
		case err != nil && ctx.Err() != nil:
			return out, asks, ctx.Err()
		case err != nil && !errors.Is(err, receipt.ErrNotFound) && first == nil:
			first = fmt.Errorf("expire receipt %s: %w", id, err)
		case err != nil:
		case change != nil:
			out = append(out, *change)
		}
		if ask != nil {
			asks = append(asks, *ask)
		}
	}
	return out, asks, first
}

// expire records the expiry of receipt id at now when its window has ended (after reopening it
// when stuck), and returns the append (nil when nothing changed). Unless asked, the expiry of a
// receipt with an earlier onramp session the processor may still be completing
// (commands.AsksAtWindowEnd) waits for the processor's answer (AskingAtEnd): it is returned to
// ask about, and only the reopening, if any, is recorded.
func (h *PaymentWindowHandler) expire(ctx context.Context, id string, now time.Time, asked bool) (*commands.ReceiptChange, *windowAsk, error) {
	changed := false
	var ask *windowAsk
	_, res, err := commands.ChangeReceipt(ctx, h.store, id, windowMeta, func(st receipt.State) ([]receipt.Event, error) {
		ask = nil
		evs, err := receipt.Then(st, receipt.ReopenStuckACH(st, now.UnixMilli()), nil, func(st receipt.State) ([]receipt.Event, error) {
			evs, err := receipt.Expire(st, now.UnixMilli(), h.cfg.Monitor)
			if len(evs) > 0 && !asked && h.ask != nil && commands.AsksAtWindowEnd(st) {
				ask = &windowAsk{id: id, end: time.UnixMilli(st.Receipt.ExpiresAt)}
				return nil, nil
			}
			return evs, err
		})
		changed = len(evs) > 0
		return evs, err
	})
	if err != nil || !changed {
		return nil, ask, err
	}
	return &commands.ReceiptChange{ReceiptID: id, Result: res}, ask, nil
}
