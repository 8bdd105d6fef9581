package receipt

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/failure"
	"github.com/payledger/payledger/domain/money"
)

// Rules of a processor report (DecideProcessorUpdate), on top of the guards of payment.go:
//   - A success pays the receipt only with a source amount that covers what is still due in USD
//     (OnrampDue, what the service asks a session for): the total, or an EUR receipt's total at
//     its recorded EUR/USD rate (the rate the session was asked with), half-up to the cent, less
//     the share the confirmed transfers to the deposit address already cover, rounded up to the
//     cent; the reported amount is compared exactly. So an underpaid receipt's card payment of
//     the rest pays it, with the transfers (the customer does not pay the part sent again). Less
//     is recorded as PaymentIgnored (underpaid, with the amount) and changes no status, except
//     that the short completion of an accepted ACH payment makes the receipt pending again
//     (achShort): the bank payment is over, and another may pay the receipt. A success
//     without an amount of a session the service started for the receipt brings what the session
//     was asked for (AttemptStarted.AskedUSDCents): it pays unless what is due has risen above that
//     meanwhile (then underpaid), or when the asked amount is not recorded. Any other success
//     without an amount confirms nothing and records nothing: the processor's event is kept, and
//     the reconciler's Get of the session decides when it shows the amount.
//   - A session the service started for another receipt pays nothing here: its success is
//     PaymentIgnored, its failure FailureIgnored, its progress changes nothing.
//   - A success of another attempt or session on a receipt already paid (or beyond) is a second
//     payment: PaymentIgnored (duplicate payment, with the session and amount), for a refund. The
//     same confirmation again changes nothing.
//   - A success that pays nothing is recorded once per session's attempt: reported first without
//     its transaction hash and then with it, the second report records nothing more
//     (processorIgnoredAlready).
//   - A processing or ach_pending report of the attempt the receipt failed on changes nothing
//     (Submit, AcceptACH): only a new attempt moves a failed receipt on.
//   - A processing or ach_pending report of an earlier session of the receipt, created before
//     the window's end, makes it the current attempt again, once (window_resume.go): the payment
//     under way holds the window, and the newer session's failure is another attempt's.
//   - A rejection of an accepted ACH payment's attempt, created after the acceptance, is its
//     return: the receipt fails (achReturned). Any other failure of an ach_pending receipt is
//     recorded as ignored.
//   - A failure of a card session retried after a decline replaces the receipt's failure
//     (retryFailed): the session is over, and the window may expire the receipt.

// ProcessorUpdate is a status report from the onramp processor, by signed event or its API.
type ProcessorUpdate struct {
	SessionID, AttemptID, Status, ErrorCode, RequestID, TransactionHash, Wallet string
	SourceAmountCents                                                           *int64
	// SourceAmountUSD is the amount as the processor reported it (an exact decimal, "" when not
	// reported or only SourceAmountCents is known); the amount check compares it exactly.
	SourceAmountUSD string
	SessionUnique   bool
	// SessionOwner is the receipt the service started the session for; "" when the service did
	// not start it (a merchant's session) or it is not known.
	SessionOwner string
	// Asked is what the service asked its sessions of this receipt for, in USD cents, by attempt
	// id (AttemptStarted.AskedUSDCents). State does not keep it: the caller folds it from the
	// receipt's events. An attempt missing from it asked for an unknown amount.
	Asked map[string]int64
	At    int64 // Unix ms
}

// ProcessorStatuses are the session statuses of the onramp processor (DESIGN.md section 6).
var ProcessorStatuses = []string{"fulfillment_processing", "ach_pending", "fulfillment_complete", "rejected", "expired", "cancelled"}

// IsFailure reports a terminal failure status of the processor.
func (u ProcessorUpdate) IsFailure() bool {
	return u.Status == "rejected" || u.Status == "expired" || u.Status == "cancelled"
}

// DecideProcessorUpdate turns a processor report into receipt events through the guards. A
// report for a session the service did not start opens an attempt for it, unless it is a
// failure: a failure of an attempt the receipt does not know is ignored (and recorded). Errors:
// those of Submit, AcceptACH, Confirm and Fail (ErrNotFound, ErrState, ErrWithdrawn).
func DecideProcessorUpdate(s State, u ProcessorUpdate) ([]Event, error) {
	if s.Exists && u.SessionOwner != "" && u.SessionOwner != s.Receipt.ReceiptID {
		return decideForeignSession(s, u)
	}
	attempt := u.AttemptID
	if attempt == "" {
		for id, a := range s.Attempts {
			if a.SessionID != "" && a.SessionID == u.SessionID {
				attempt = id
			}
		}
	}
	opened := resumeEarlier(s, u, attempt)
	if _, known := s.Attempts[attempt]; !known && !u.IsFailure() {
		if attempt == "" {
			attempt = "att_" + u.SessionID
		}
		evs, err := StartAttempt(s, AttemptStarted{AttemptID: attempt, Kind: "onramp", SessionID: u.SessionID,
			SessionUnique: u.SessionUnique, OpenedBy: "processor", At: u.At})
		if err == nil {
			opened = evs
		}
	}
	if attempt == "" {
		attempt = "session:" + u.SessionID
	}
	return Then(s, opened, nil, func(s State) ([]Event, error) { return decideProcessorStatus(s, u, attempt) })
}

// decideProcessorStatus is the processor's status of attempt as receipt events.
func decideProcessorStatus(s State, u ProcessorUpdate, attempt string) ([]Event, error) {
	switch u.Status {
	case "fulfillment_processing":
		return Submit(s, PaymentSubmitted{AttemptID: attempt, Source: "processor", At: u.At})
	case "ach_pending":
		return AcceptACH(s, ACHAccepted{AttemptID: attempt, At: u.At})
	case "fulfillment_complete":
		return confirmProcessor(s, u, attempt)
	case "rejected", "expired", "cancelled":
		c := failure.FromProcessor(u.Status, u.ErrorCode)
		f := PaymentFailed{AttemptID: attempt, Code: c.Code, Category: c.Category, Reason: c.Description,
			Action: c.Action, ProviderErrorCode: u.ErrorCode, ProviderRequestID: u.RequestID, At: u.At}
		if achReturned(s, u, attempt) || retryFailed(s, attempt) {
			return []Event{f}, nil
		}
		return Fail(s, f)
	}
	return nil, nil
}

// retryFailed reports whether a processor failure is of the card session a customer opened after
// a declined one, while it holds the receipt's window (OnrampOpen: failed by the earlier attempt,
// not expired). It is not stale: the receipt is tied to that attempt. Recorded as ignored ("a
// failure never replaces failed"), the session stayed open for good: the window never expired
// the receipt, the reconciliation asked the processor about it on every pass, and the receipt
// showed the first decline's reason. It replaces the receipt's failure (the status stays failed).
func retryFailed(s State, attempt string) bool {
	return s.Status == StatusFailed && attempt == s.CurrentAttempt && s.OnrampOpen()
}

// achReturned reports whether a processor failure is the return of the receipt's accepted ACH
// payment: a rejection of the attempt that put the receipt in ach_pending, created after that
// acceptance. Such a failure is not stale (spec rule 4 keeps an accepted payment from a failure
// older than it, or of another attempt): the bank payment ended unpaid, and recorded as ignored
// it left the receipt "Bank payment pending" for good, with no webhook. While a receipt is
// ach_pending its UpdatedAt is the acceptance's time or later (a refund of a transfer it ignored
// also sets it), so a failure after it is after the acceptance. A rejection created in the same
// second as the acceptance, or before it, is not known to be later and stays ignored.
// expired and cancelled are left ignored: they can describe the checkout session, which ends
// while the bank payment is still settling.
func achReturned(s State, u ProcessorUpdate, attempt string) bool {
	return s.Exists && s.Status == StatusACHPending && u.Status == "rejected" && attempt == s.CurrentAttempt &&
		u.At > s.UpdatedAt && !s.Expired()
}

// processorPayment is the confirmation a processor success of attempt reports.
func processorPayment(u ProcessorUpdate, attempt string) PaymentConfirmed {
	return PaymentConfirmed{AttemptID: attempt, TransactionHash: strings.ToLower(u.TransactionHash),
		BuyerWallet: strings.ToLower(u.Wallet), Token: "USDC", SourceAmountCents: u.SourceAmountCents, VerifiedBy: "processor", At: u.At}
}

// confirmProcessor decides a processor success of attempt: a second payment of a settled
// receipt is recorded, Confirm's guards apply (an expired receipt), then the amount must cover
// what is due.
func confirmProcessor(s State, u ProcessorUpdate, attempt string) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	c := processorPayment(u, attempt)
	if slices.Contains(settled, s.Status) {
		if s.paidBy(attempt, u.SessionID) {
			return nil, nil // the same confirmation again
		}
		return ignoreProcessor(s, u, c, fmt.Sprintf("duplicate payment: the receipt is already %s; session %s reported a second payment of %s USD, to be refunded",
			s.Status, sessionText(u.SessionID), amountText(u)))
	}
	evs, err := Confirm(s, c)
	if err == nil && len(evs) > 0 && !slices.ContainsFunc(evs, isConfirmation) && s.processorIgnoredAlready(c) {
		return nil, nil // after the window: this session's success is recorded already (without its hash)
	}
	if err != nil || !slices.ContainsFunc(evs, isConfirmation) {
		return evs, err
	}
	if u.SourceAmountCents == nil && u.SourceAmountUSD == "" {
		// The spec's amount is "when available". A session the service started for this receipt
		// asked the processor for the amount due, and the processor signed its completion; any
		// other session is not verified yet: the reconciler's Get of the session decides.
		if u.SessionOwner != "" && u.SessionOwner == s.Receipt.ReceiptID {
			return confirmAsked(s, u, c, evs)
		}
		return nil, nil
	}
	due, err := OnrampDue(s)
	if err != nil {
		// An EUR receipt never quoted has no rate to put its total in dollars: only a session the
		// service did not start can pay it (the service records a rate before it starts one), and
		// such a success confirmed before the amount was checked; it still does.
		return evs, nil
	}
	if paid := sourceAmount(u); paid.Cmp(new(big.Rat).SetFrac64(int64(due), 100)) < 0 {
		return ignoreProcessor(s, u, c, fmt.Sprintf("underpaid: the processor reported %s USD of the %s USD due (session %s)",
			amountText(u), due.String(), sessionText(u.SessionID)))
	}
	return evs, nil
}

// confirmAsked decides a success without an amount of a session the service started for this
// receipt: the processor collected what the session was asked for (u.Asked). What was due then
// may have risen since: a chain part the asked amount left out was taken back (a reorg past the
// confirmation depth, a refund of the transfer). It then pays less than is due, and is recorded
// as underpaid (PaymentIgnored), as a short success with an amount is; it paid the receipt, which
// read paid with only the rest collected. An attempt whose asked amount is not recorded (started
// before stop 68) pays, as it did.
func confirmAsked(s State, u ProcessorUpdate, c PaymentConfirmed, evs []Event) ([]Event, error) {
	asked, known := u.Asked[c.AttemptID]
	if !known || asked <= 0 {
		return evs, nil
	}
	due, err := OnrampDue(s)
	if err != nil || int64(due) <= asked {
		return evs, nil
	}
	return ignoreProcessor(s, u, c, fmt.Sprintf("underpaid: the processor reported no amount; session %s was asked for %s USD and %s USD is due now",
		sessionText(u.SessionID), money.Cents(asked).String(), due.String()))
}

// decideForeignSession decides a report of a session the service started for another receipt:
// it never pays, fails or moves this one.
func decideForeignSession(s State, u ProcessorUpdate) ([]Event, error) {
	why := "the session " + sessionText(u.SessionID) + " was started by the service for receipt " + u.SessionOwner
	attempt := u.AttemptID
	if attempt == "" {
		attempt = "session:" + u.SessionID
	}
	switch {
	case u.Status == "fulfillment_complete":
		return ignoreProcessor(s, u, processorPayment(u, attempt), why+"; its payment of "+amountText(u)+" USD does not pay this receipt")
	case u.IsFailure():
		c := failure.FromProcessor(u.Status, u.ErrorCode)
		return []Event{FailureIgnored{AttemptID: attempt, Code: c.Code, ProviderErrorCode: u.ErrorCode, Why: why, StatusAtArrival: s.Status, At: u.At}}, nil
	}
	return nil, nil
}

// ignoreProcessor records a processor success that pays nothing as PaymentIgnored, with its
// source amount (USD cents: token USD, decimals 2), once per transaction hash, and a hashless one
// once per attempt (the reconciler asks about an open attempt on every pass). Keyed by the
// hash alone, a second session's hashless success found the first's key and was not recorded:
// its attempt never ended (EndedAttempts), so it held the payment window open for good.
func ignoreProcessor(s State, u ProcessorUpdate, c PaymentConfirmed, why string) ([]Event, error) {
	if s.processorIgnoredAlready(c) {
		return nil, nil
	}
	e := PaymentIgnored{AttemptID: c.AttemptID, VerifiedBy: c.VerifiedBy, TransactionHash: c.TransactionHash, Token: c.Token,
		Why: why, StatusAtArrival: s.Status, Reopened: achShort(s, c.AttemptID), At: c.At}
	return []Event{withSourceAmount(e, u.SourceAmountCents)}, nil
}

// achShort reports whether a processor success of attempt that pays nothing is the completion of
// the receipt's accepted ACH payment: the receipt is ach_pending on that attempt. It brought less
// than is due (ignoreProcessor's only case on an ach_pending receipt: a second payment needs a
// settled one, a foreign session is never the current attempt). Recorded as ignored alone, it
// ended the attempt and left the receipt ach_pending for good: no event leaves that status but
// the attempt's success or return, the window never expires it, and the start of a new payment
// is refused. The receipt becomes pending (PaymentIgnored.Reopened) with the short amount in the
// history: a new attempt may pay it, or its window fails it.
func achShort(s State, attempt string) bool {
	return s.Status == StatusACHPending && attempt != "" && attempt == s.CurrentAttempt
}

// processorIgnoredAlready reports whether the processor success c is recorded as PaymentIgnored
// already: by its hash (ignoredAlready), or because its attempt's success was (the attempt is
// ended). A session reports one payment; its success may come first without the transaction
// hash (not yet delivered on chain, or the reconciler's read of the session) and then with it,
// and keyed by the hash alone the second report was recorded again: one card payment read as
// two to refund.
func (s State) processorIgnoredAlready(c PaymentConfirmed) bool {
	return s.ignoredAlready(c) || c.AttemptID != "" && slices.Contains(s.EndedAttempts, c.AttemptID)
}

// paidBy reports whether the receipt's payment is the one of attempt or of session.
func (s State) paidBy(attempt, session string) bool {
	if s.Payment == nil {
		return false
	}
	if s.Payment.AttemptID == attempt {
		return true
	}
	a, ok := s.Attempts[s.Payment.AttemptID]
	return ok && session != "" && a.SessionID == session
}

// DueUSD is what an onramp must collect for the receipt, in USD cents: the total, or an EUR
// receipt's total at its recorded EUR/USD rate, half-up to the cent. Errors: ErrAmount (an EUR
// receipt without a usable rate).
func DueUSD(s State) (money.Cents, error) {
	if s.Receipt.Currency != "EUR" {
		return s.Receipt.Total, nil
	}
	usd, ok := EURInUSD(s.Receipt.Total, s.EURUSDRate)
	if !ok {
		return 0, fmt.Errorf("%w: no EUR/USD rate recorded", ErrAmount)
	}
	return usd, nil
}

// OnrampDue is what an onramp session must collect for the receipt now, in USD cents: DueUSD
// less the share of it that the confirmed transfers to the deposit address cover (as Covered
// judges them; a transfer not yet confirmed may still leave the chain, so it reduces nothing),
// rounded up to the cent so that paying it completes the payment; 0 when they cover it all.
// What a session is asked for and what its success must bring are both this, judged when each
// happens: transfers confirmed in between lower it, funds given back meanwhile raise it. Errors:
// DueUSD's (ErrAmount).
func OnrampDue(s State) (money.Cents, error) {
	due, err := DueUSD(s)
	if err != nil {
		return 0, err
	}
	num, den := s.coveredShare()
	if num.Sign() <= 0 || due <= 0 {
		return due, nil
	}
	rest := new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).SetFrac(num, den))
	if rest.Sign() <= 0 {
		return 0, nil
	}
	return money.Cents(ceil(rest.Mul(rest, new(big.Rat).SetInt64(int64(due)))).Int64()), nil
}

// EURInUSD is eur cents at rate (USD per EUR, an exact decimal), half-up to the cent; ok is false
// for a rate that is not a positive number. What an onramp session asks for and what its
// success must cover are both this.
func EURInUSD(eur money.Cents, rate string) (usd money.Cents, ok bool) {
	r, ok := new(big.Rat).SetString(rate)
	if !ok || r.Sign() <= 0 {
		return 0, false
	}
	return money.RoundHalfUp(r.Mul(r, new(big.Rat).SetInt64(int64(eur)))), true
}

// sourceAmount is the reported amount in USD, exact when the processor's text is known.
func sourceAmount(u ProcessorUpdate) *big.Rat {
	if r, ok := new(big.Rat).SetString(u.SourceAmountUSD); ok && u.SourceAmountUSD != "" {
		return r
	}
	if u.SourceAmountCents != nil {
		return new(big.Rat).SetFrac64(*u.SourceAmountCents, 100)
	}
	return new(big.Rat)
}

// amountText is the reported amount as the processor gave it, or "an unknown amount of".
func amountText(u ProcessorUpdate) string {
	switch {
	case u.SourceAmountUSD != "":
		return u.SourceAmountUSD
	case u.SourceAmountCents != nil:
		return money.Cents(*u.SourceAmountCents).String()
	}
	return "an unknown amount of"
}

func sessionText(id string) string {
	if id == "" {
		return "(none)"
	}
	return id
}

func isConfirmation(e Event) bool {
	_, ok := e.(PaymentConfirmed)
	return ok
}

// Then chains two decisions: the second sees the state after the first's events. Errors: err
// when not nil, else next's.
func Then(s State, first []Event, err error, next func(State) ([]Event, error)) ([]Event, error) {
	if err != nil {
		return nil, err
	}
	for _, e := range first {
		s = Evolve(s, e)
	}
	more, err := next(s)
	if err != nil {
		return nil, err
	}
	return append(first, more...), nil
}
