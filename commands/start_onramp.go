package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// Processor is the onramp processor's session API (DESIGN.md section 6).
type Processor interface {
	Create(ctx context.Context, req OnrampRequest) (OnrampSession, error)
	Get(ctx context.Context, id string) (OnrampSession, error)
}

// OnrampRequest asks the processor for a session for one payment attempt.
type OnrampRequest struct {
	ReceiptID         string
	AttemptID         string
	AmountUSD         json.Number
	Token             string
	DestinationWallet string
	RedirectURL       string
}

// OnrampSession is the processor's view of a session.
type OnrampSession struct {
	ID              string
	Status          string
	RedirectURL     string
	ErrorCode       string
	RequestID       string
	TransactionHash string
	WalletAddress   string
	SourceAmountUSD *json.Number
}

// StartOnramp starts a card/bank payment of a receipt: a processor session paying the merchant's
// split contract in USDC.
type StartOnramp struct {
	ReceiptID string
	Meta      eventstore.Metadata
}

// OnrampStarted is the attempt StartOnramp opened and the session the customer goes to.
type OnrampStarted struct {
	AttemptID   string
	SessionID   string
	RedirectURL string
	// AmountUSD is what the session was asked for: what is still due (receipt.OnrampDue).
	AmountUSD money.Cents
	Result    eventstore.AppendResult
}

// StartOnrampHandler starts onramp payments.
type StartOnrampHandler struct {
	store     Store
	splits    *Splits
	processor Processor  // nil: the onramp is not configured
	prices    Prices     // the EUR/USD rate of an EUR receipt that has none recorded
	clock     judgeClock // the database's with JudgedBy (reconcile_onramp_clock.go)
}

// NewStartOnrampHandler returns the handler. processor may be nil (PROCESSOR_API_URL unset: every
// start is refused with ErrProcessorNotSetUp); it panics on another nil dependency.
func NewStartOnrampHandler(store Store, splits *Splits, processor Processor, prices Prices, now func() time.Time) *StartOnrampHandler {
	if store == nil || splits == nil || prices == nil || now == nil {
		panic("commands.NewStartOnrampHandler: nil dependency")
	}
	return &StartOnrampHandler{store: store, splits: splits, processor: processor, prices: prices, clock: judgeClock{now: now}}
}

// Handle checks that a payment may start, within the receipt's bounds on onramp starts
// (receipt.CanStartOnramp), and that the merchant's split is configured before it asks the
// processor for a session, then records the attempt with the session (the bounds checked again).
// Errors: ErrProcessorNotSetUp, receipt.ErrNotFound, receipt.ErrState (also at or after the end of
// the receipt's payment window, and while the processor completes the payment of the current
// session: paymentUnderWay), receipt.ErrOnrampLimited
// and receipt.ErrOnrampExhausted, ErrSplitRequired, ErrProcessorUnavailable (wrapping the
// processor's error), ErrContended, the database clock's (JudgedBy), wrapped store errors. The
// window's end is judged by the database's clock with JudgedBy, read once.
func (h *StartOnrampHandler) Handle(ctx context.Context, cmd StartOnramp) (OnrampStarted, error) {
	if h.processor == nil {
		return OnrampStarted{}, ErrProcessorNotSetUp
	}
	now, err := h.clock.read(ctx)
	if err != nil {
		return OnrampStarted{}, err
	}
	loaded, err := LoadReceipt(ctx, h.store, cmd.ReceiptID)
	if err != nil {
		return OnrampStarted{}, err
	}
	st := loaded.State
	// Before any external call: a refused start creates no session at the processor.
	if err := canStartOnramp(st, now().UnixMilli()); err != nil {
		return OnrampStarted{}, err
	}
	if err := h.paymentUnderWay(ctx, st); err != nil {
		return OnrampStarted{}, err
	}
	sp, err := h.splits.Require(ctx, st.Receipt.Merchant)
	if err != nil {
		return OnrampStarted{}, err
	}
	amountUSD, err := h.amountUSD(ctx, st, cmd.Meta, now)
	if err != nil {
		return OnrampStarted{}, err
	}
	attemptID := newAttemptID()
	sess, err := h.processor.Create(ctx, OnrampRequest{ReceiptID: cmd.ReceiptID, AttemptID: attemptID, AmountUSD: json.Number(amountUSD.String()),
		Token: "USDC", DestinationWallet: sp.Address, RedirectURL: st.Receipt.RedirectURL})
	if err != nil {
		return OnrampStarted{}, fmt.Errorf("%w: %w", ErrProcessorUnavailable, err)
	}
	_, res, err := ChangeReceipt(ctx, h.store, cmd.ReceiptID, cmd.Meta, func(st receipt.State) ([]receipt.Event, error) {
		at := now().UnixMilli()
		if err := windowOpen(st, at); err != nil {
			return nil, err
		}
		return receipt.StartOnramp(st, receipt.AttemptStarted{AttemptID: attemptID, Kind: "onramp", SessionID: sess.ID, SessionUnique: true,
			OpenedBy: "service", AskedUSDCents: int64(amountUSD), At: at})
	})
	if err != nil {
		return OnrampStarted{}, err
	}
	return OnrampStarted{AttemptID: attemptID, SessionID: sess.ID, RedirectURL: sess.RedirectURL, AmountUSD: amountUSD, Result: res}, nil
}

// underWay are the session statuses of a payment the processor has taken and is completing.
var underWay = []string{"fulfillment_processing", "ach_pending", "fulfillment_complete"}

// paymentUnderWay refuses, with receipt.ErrState, a start while the processor is completing the
// payment of one of the receipt's onramp sessions (asked of its session API: a processing report
// records nothing on a receipt already pending, such as one underpaid on chain whose page offers
// the card for the rest, and a webhook may be lost). That payment pays the receipt once it
// completes; a second session would charge the customer twice, and as the current attempt it
// would make a failure of the first one ignored. A session that is still open (a checkout the
// customer left), decided, or that the processor cannot be asked about leaves the start to go on.
// The processor's report of the payment may come late or be lost, so a generated receipt (its
// page still "Awaiting payment" with the card button) is asked about too. Not only the current
// session: a customer who left a checkout and started another can still pay the first one in
// its own tab, whose processing report records nothing (not the current attempt), and a third
// start was let through on the second session's "created": the customer paid twice.
// sessionsToAsk says which sessions are asked; a receipt with none needs no call.
func (h *StartOnrampHandler) paymentUnderWay(ctx context.Context, st receipt.State) error {
	for _, a := range sessionsToAsk(st) {
		sess, err := h.processor.Get(ctx, a.SessionID)
		if processorDown(err) {
			return nil // the processor cannot be asked now: neither can it start a session
		}
		if err != nil || !slices.Contains(underWay, sess.Status) {
			continue
		}
		return fmt.Errorf("%w: the card or bank payment of session %s is being completed by the processor; it pays this receipt once it is (a second one would charge the customer twice)",
			receipt.ErrState, a.SessionID)
	}
	return nil
}

// maxSessionsAsked bounds the sessions one start asks the processor about (starts are bounded
// per receipt: receipt.MaxOnrampStartsPerHour): a customer's earlier checkout still open in
// another tab is one of the last few.
const maxSessionsAsked = 5

// sessionsToAsk are the receipt's onramp sessions the processor may still be completing, newest
// first, at most maxSessionsAsked: every onramp attempt with a session except one whose success
// was recorded as paying nothing (EndedAttempts) and the one the receipt failed on (decided).
func sessionsToAsk(st receipt.State) []receipt.Attempt {
	var out []receipt.Attempt
	for _, a := range st.Attempts {
		if a.Kind != "onramp" || a.SessionID == "" || slices.Contains(st.EndedAttempts, a.ID) ||
			st.Status == receipt.StatusFailed && st.Failure != nil && st.Failure.AttemptID == a.ID {
			continue
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y receipt.Attempt) int {
		if c := cmp.Compare(y.StartedAt, x.StartedAt); c != 0 {
			return c
		}
		return cmp.Compare(y.ID, x.ID)
	})
	return out[:min(len(out), maxSessionsAsked)]
}

// canStartOnramp is receipt.CanStartOnramp at `at`, inside the receipt's payment window.
func canStartOnramp(st receipt.State, at int64) error {
	if err := receipt.CanStartOnramp(st, at); err != nil {
		return err
	}
	return windowOpen(st, at)
}

// windowOpen refuses, with receipt.ErrState, a start at or after the end of the receipt's
// payment window (ExpiresAt), whether or not the window process has recorded the expiry yet (it
// does a few seconds later): an open onramp attempt holds the window, so a session started then
// would keep the receipt from ever being failed, and the customer would pay an order the
// merchant had given up.
func windowOpen(st receipt.State, at int64) error {
	if end := st.Receipt.ExpiresAt; end != 0 && at >= end {
		return fmt.Errorf("%w: the payment window ended at %s; only funds confirmed at the receipt's deposit address can pay it now",
			receipt.ErrState, time.UnixMilli(end).UTC().Format(time.RFC3339))
	}
	return nil
}

// amountUSD is what the processor must collect: what is still due (receipt.OnrampDue: the
// total, an EUR receipt's at its recorded EUR/USD rate, less what the confirmed transfers to the
// deposit address cover), so that the card payment of an underpaid receipt is its rest, not the
// whole total again. An EUR receipt without a recorded rate gets the current one recorded first
// (a USDC quote), so the amount can always be proved from the log; the rate is decided inside
// the append (receipt.QuoteRate), so of concurrent first starts only the first records a quote
// and all use its rate. Errors: ErrPriceUnavailable, the quote's, receipt.ErrState (the confirmed
// transfers cover the receipt: nothing is left to pay).
func (h *StartOnrampHandler) amountUSD(ctx context.Context, st receipt.State, meta eventstore.Metadata, now func() time.Time) (money.Cents, error) {
	if st.Receipt.Currency == "EUR" && st.EURUSDRate == "" {
		var err error
		if st, err = h.recordRate(ctx, st.Receipt.ReceiptID, meta, now); err != nil {
			return 0, err
		}
	}
	due, err := receipt.OnrampDue(st)
	if err != nil {
		return 0, priceUnavailable("The recorded EUR/USD rate is not a positive number")
	}
	if due <= 0 {
		return 0, fmt.Errorf("%w: the transfers confirmed at the receipt's deposit address cover it; nothing is left to pay", receipt.ErrState)
	}
	return due, nil
}

// recordRate records the current EUR/USD rate as receipt id's first quote at now, unless one is
// recorded meanwhile, and returns the receipt's state after it. Errors: ErrPriceUnavailable, the
// quote's, the store's.
func (h *StartOnrampHandler) recordRate(ctx context.Context, id string, meta eventstore.Metadata, now func() time.Time) (receipt.State, error) {
	prices, err := h.prices.USDPrices(ctx)
	if err != nil {
		return receipt.State{}, err
	}
	current := prices["EUR"]
	st, _, err := ChangeReceipt(ctx, h.store, id, meta, func(st receipt.State) ([]receipt.Event, error) {
		rate := receipt.QuoteRate(st, current)
		if st.EURUSDRate != "" {
			return nil, nil // another start (or a quote) recorded the first rate meanwhile: it holds
		}
		if rate == "" {
			return nil, priceUnavailable("No EUR/USD rate is set")
		}
		q, err := receipt.Quote(st, "USDC", "1", rate, now().UnixMilli())
		return []receipt.Event{q}, err
	})
	return st, err
}

// ConvertEURToUSD converts cents of EUR at rate (USD per EUR, an exact decimal), half-up to the
// cent. Errors: ErrPriceUnavailable for a rate that is not a positive number.
func ConvertEURToUSD(eur money.Cents, rate string) (money.Cents, error) {
	usd, ok := receipt.EURInUSD(eur, rate)
	if !ok {
		return 0, priceUnavailable("The recorded EUR/USD rate is not a positive number")
	}
	return usd, nil
}
