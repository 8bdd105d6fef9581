package receipt

import (
	"errors"
	"fmt"
)

// Bounds on what the payment page's public routes append to a receipt's stream (DESIGN 10, stop
// 59). Those routes are limited only per IP, and every command replays the receipt's whole
// stream, so without a bound per receipt anonymous calls from rotating addresses make its later
// commands slower without end (as telemetry and payment hints were, MaxTelemetryPerHour):
//   - a new quote made through QuoteInWindow (the page's) is refused with ErrQuotesLimited once
//     the receipt has recorded MaxQuotesPerHour quotes in the clock hour of `at`, and with
//     ErrQuotesExhausted once it has recorded MaxQuotes in all: the stream is bounded absolutely,
//     not only per hour. A held quote returned without an event is never refused; nor is the
//     deposit detector's ValueTransfer, which values a transfer that has already arrived (and
//     makes at most one quote per token), nor the onramp's quote of an EUR rate (one, ever).
//     Those quotes count all the same: they are in the stream;
//   - an onramp start the service makes (CanStartOnramp, StartOnramp) is refused with
//     ErrOnrampLimited once the receipt has recorded MaxOnrampStartsPerHour such attempts in the
//     clock hour of `at`, and with ErrOnrampExhausted once it has recorded MaxOnrampStarts in
//     all. It is checked before the processor is asked for a session, so a refused start creates
//     none. A session the processor opened (OpenedBy "processor", from its signed webhook) is
//     recorded whatever the count, and not counted; wallet and terminal attempts are not counted;
//   - the counts are State's, folded by Evolve from the events' own At times, so a replay gives
//     the same answer; a clock hour is Unix ms / msPerHour (UTC).
const (
	// MaxQuotesPerHour is how many quotes one receipt takes in a clock hour: the page quotes
	// when it loads and when the customer picks another token, a receipt with a window holds
	// its quote per token, so 20 new quotes in an hour is far beyond a customer.
	MaxQuotesPerHour = 20
	// MaxQuotes is how many quotes one receipt ever takes. A receipt without a window is quoted
	// afresh on every visit of its page; 500 is a daily visit with a dozen token changes for
	// over a month, or 25 hours of quoting at the hourly bound: no customer reaches it, and it
	// bounds the stream's quotes (a probe measured 18 ms -> 79 ms per command at 600 events).
	MaxQuotes = 500
	// MaxOnrampStartsPerHour is how many onramp sessions the service starts for one receipt in
	// a clock hour: each is a session at the processor (an external call), and a customer
	// retries a declined card a few times, not ten.
	MaxOnrampStartsPerHour = 10
	// MaxOnrampStarts is how many onramp sessions the service ever starts for one receipt: five
	// hours at the hourly bound, far beyond the retries of a customer.
	MaxOnrampStarts = 50

	msPerHour = int64(3_600_000)
)

// Errors of the bounds. Each Exhausted error is its Limited error (errors.Is), past the lifetime
// bound rather than the hour's. An hour's refusal comes as a *Limited, which says when the bound
// lets the receipt try again; a lifetime bound never does.
var (
	ErrQuotesLimited   = errors.New("the receipt has taken its quotes for this hour")
	ErrQuotesExhausted = fmt.Errorf("%w: the receipt has taken the most quotes it takes", ErrQuotesLimited)
	ErrOnrampLimited   = errors.New("the receipt has started its onramp sessions for this hour")
	ErrOnrampExhausted = fmt.Errorf("%w: the receipt has started the most onramp sessions it starts", ErrOnrampLimited)
)

// HourTally counts recorded events: all of them, and those of the latest clock hour one was
// recorded in.
type HourTally struct {
	Total  int   `json:"total"`
	Hour   int64 `json:"hour"`   // the latest clock hour an event was counted in (Unix ms / msPerHour)
	InHour int   `json:"inHour"` // the events counted in Hour
}

// add counts an event recorded at `at` (Unix ms). An event of an hour before Hour (the clocks of
// two instances disagree) counts in Total only.
func (c HourTally) add(at int64) HourTally {
	c.Total++
	switch h := at / msPerHour; {
	case h > c.Hour || c.InHour == 0:
		c.Hour, c.InHour = h, 1
	case h == c.Hour:
		c.InHour++
	}
	return c
}

// Limited is a refusal by a bound of a clock hour (or of the hour before a moment): its error
// (errors.Is: ErrQuotesLimited, ErrOnrampLimited, the commands' telemetry and hint bounds) and
// when the bound lets the receipt try again, in Unix ms. The API answers it with the spec's
// resetAt (429 rate_limited: "clients back off until then").
type Limited struct {
	err     error
	resetAt int64
}

// NewLimited returns err refused until resetAt (Unix ms).
func NewLimited(err error, resetAt int64) *Limited { return &Limited{err: err, resetAt: resetAt} }

// NextHour is the start (Unix ms) of the clock hour after the one of at (Unix ms): when a bound
// of at's clock hour lets the receipt try again.
func NextHour(at int64) int64 { return (at/msPerHour + 1) * msPerHour }

func (e *Limited) Error() string  { return e.err.Error() }
func (e *Limited) Unwrap() error  { return e.err }
func (e *Limited) ResetAt() int64 { return e.resetAt }

// in is how many events were counted in the clock hour of `at`. A clock behind the latest
// counted hour is judged by that hour, so a skewed clock never reopens a full hour.
func (c HourTally) in(at int64) int {
	if at/msPerHour > c.Hour {
		return 0
	}
	return c.InHour
}

// limited is err, the refusal of a full hour at `at`, with the start of the hour after the one
// that is full: Hour's when a clock behind it is judged by it (in).
func (c HourTally) limited(err error, at int64) *Limited {
	return NewLimited(err, NextHour(max(at, c.Hour*msPerHour)))
}

// limitState is the bounds' part of State (embedded: its fields are State's).
type limitState struct {
	// QuotesRecorded counts the TokenQuoted events, whoever made them.
	QuotesRecorded HourTally `json:"quotesRecorded,omitzero"`
	// OnrampStarts counts the onramp attempts the service started (AttemptStarted of kind onramp
	// not opened by the processor).
	OnrampStarts HourTally `json:"onrampStarts,omitzero"`
}

// countAttempt counts a started attempt that the onramp bounds concern (evolvePayment's case).
func (s *State) countAttempt(a AttemptStarted) {
	if a.Kind == "onramp" && a.OpenedBy != "processor" {
		s.OnrampStarts = s.OnrampStarts.add(a.At)
	}
}

// QuoteAllowed reports whether a new quote may be recorded through the page at `at` (Unix ms).
// Errors: ErrQuotesExhausted, ErrQuotesLimited.
func QuoteAllowed(s State, at int64) error {
	if s.QuotesRecorded.Total >= MaxQuotes {
		return fmt.Errorf("%w (%d)", ErrQuotesExhausted, MaxQuotes)
	}
	if s.QuotesRecorded.in(at) >= MaxQuotesPerHour {
		return s.QuotesRecorded.limited(fmt.Errorf("%w (%d in a clock hour)", ErrQuotesLimited, MaxQuotesPerHour), at)
	}
	return nil
}

// CanStartOnramp reports whether the service may start an onramp session for the receipt at
// `at` (Unix ms), so that the caller asks the processor for one only then. Errors:
// CanStartAttempt's (ErrNotFound, ErrState), ErrOnrampExhausted, ErrOnrampLimited.
func CanStartOnramp(s State, at int64) error {
	if err := CanStartAttempt(s); err != nil {
		return err
	}
	if s.OnrampStarts.Total >= MaxOnrampStarts {
		return fmt.Errorf("%w (%d)", ErrOnrampExhausted, MaxOnrampStarts)
	}
	if s.OnrampStarts.in(at) >= MaxOnrampStartsPerHour {
		return s.OnrampStarts.limited(fmt.Errorf("%w (%d in a clock hour)", ErrOnrampLimited, MaxOnrampStartsPerHour), at)
	}
	return nil
}

// StartOnramp opens the onramp attempt a (the service's session) within the bounds, checked
// again at a.At: a start that passed CanStartOnramp while others were recorded is refused here,
// so the stream stays bounded. Errors: CanStartOnramp's.
func StartOnramp(s State, a AttemptStarted) ([]Event, error) {
	if err := CanStartOnramp(s, a.At); err != nil {
		return nil, err
	}
	return StartAttempt(s, a)
}
