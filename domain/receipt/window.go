package receipt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/failure"
)

// The payment window (DESIGN 9). A receipt made while PAYMENT_WINDOW is configured has a window:
// Generated.ExpiresAt (creation + PAYMENT_WINDOW); one without (0) never expires. Rules, decided
// here and in the guards of payment.go:
//   - A receipt that is not paid when its window ends (generated, pending: nothing or too little
//     received; or failed by an attempt of its own) becomes failed with PORTAL_SESSION_EXPIRED
//     (PaymentWindowExpired), unless an onramp attempt is open (the current attempt is an onramp
//     session and the receipt is generated or pending): the processor decides that one. A session
//     whose success paid too little (PaymentIgnored, underpaid) is decided: it holds nothing
//     open. Nor while transfers mined at or before ExpiresAt that cover it wait for their
//     confirmations (window_pending.go). ach_pending and settled receipts never expire. amountReceived keeps
//     what arrived.
//   - The deposit address stays watched until MonitorUntil = ExpiresAt + PAYMENT_MONITOR_WINDOW.
//   - Once expired, only confirmed funds on chain move the receipt out of failed: a chain
//     confirmation (verifiedBy chain) at or before MonitorUntil pays it late (PaidLate). Nothing
//     else does: no new attempt starts (ErrState), a submission, a hint or an ACH acceptance changes
//     nothing, a processor success or a chain confirmation after MonitorUntil is recorded as
//     PaymentIgnored, a merchant's attestation is refused (ErrState), a failure is ignored as for
//     any failed receipt (FailureIgnored).

// Event type names of the window.
const (
	EventWindowExpired  = "PaymentWindowExpired"
	EventPaymentIgnored = "PaymentIgnored"
)

// CodeWindowExpired is the failure code of an expired receipt (category session).
const CodeWindowExpired = "PORTAL_SESSION_EXPIRED"

// PaymentWindowExpired: the receipt's payment window ended before it was paid. Status failed,
// failure PORTAL_SESSION_EXPIRED (as the catalog says at expiry).
type PaymentWindowExpired struct {
	ExpiresAt    int64  `json:"expiresAt"`           // the window's end (Unix ms)
	MonitorUntil int64  `json:"monitorUntil"`        // until when a confirmed transfer still pays it late (Unix ms)
	AttemptID    string `json:"attemptId,omitempty"` // the current attempt at expiry, if any
	Code         string `json:"failureCode"`
	Category     string `json:"failureCategory"`
	Reason       string `json:"failureReason"`
	Action       string `json:"failureAction"`
	At           int64  `json:"at"`
}

// PaymentIgnored records a payment reported for an expired receipt that does not pay it (a
// processor success, or a chain confirmation after MonitorUntil), for auditors and operators:
// the funds may have arrived somewhere and need a refund. Recorded once per payment (verifiedBy,
// transaction hash and, on chain, log index; a processor's without a hash once per attempt);
// never a change of status but Reopened's.
//
// A chain's transfer (issue 41) also says what the chain showed: the sender, the base units of
// Token (of Decimals), and where (LogIndex: absent for ETH, BlockNumber, BlockHash). The transfer
// itself is a credit of the receipt (DepositTransferSeen/Confirmed): its funds paid nothing and
// are refundable with proof like a failed receipt's (ReceivedCents). Events recorded before have
// none of these fields and replay unchanged.
//
// A processor's success that brought less than is due is recorded too (processor.go); it ends its
// attempt and changes no status, except the short completion of the receipt's accepted ACH
// payment (Reopened), which makes it pending.
type PaymentIgnored struct {
	AttemptID       string `json:"attemptId,omitempty"`
	VerifiedBy      string `json:"verifiedBy"`
	TransactionHash string `json:"transactionHash,omitempty"`
	Token           string `json:"token,omitempty"`
	Sender          string `json:"sender,omitempty"`
	AmountUnits     string `json:"amountUnits,omitempty"`
	Decimals        uint8  `json:"decimals,omitempty"`
	LogIndex        *int   `json:"logIndex,omitempty"`
	BlockNumber     uint64 `json:"blockNumber,omitempty"`
	BlockHash       string `json:"blockHash,omitempty"`
	Why             string `json:"why"`
	StatusAtArrival Status `json:"statusAtArrival"`
	// Reopened (stop 69): the success is of the ACH payment that put the receipt in ach_pending,
	// and it brought less than is due. The bank payment is over: the receipt is pending again, to
	// be paid by a new attempt or failed by its window (omitted when false; events before replay
	// unchanged).
	Reopened bool `json:"reopened,omitempty"`
	// Kind (stop 70) is why a processor's success paid nothing: duplicate, underpaid, late or
	// foreign (IgnoredKind*; omitted for a chain's transfer and for the reopening of a stuck ACH
	// receipt, which records no payment). Events recorded before have none: their Why says it
	// (ignoredKind).
	Kind string `json:"kind,omitempty"`
	At   int64  `json:"at"`
}

// ignoredKey is the key of an ignored payment: verifiedBy and transaction hash, and the log index
// when there is one (two transfers of one transaction are two payments).
func ignoredKey(verifiedBy, txHash string, logIndex *int) string {
	k := verifiedBy + ":" + strings.ToLower(txHash)
	if logIndex != nil {
		k += ":" + strconv.Itoa(*logIndex)
	}
	return k
}

// paymentIgnoredBefore says whether the payment is recorded as ignored already (under its key, or
// under the key of its transaction alone, as recorded before log indexes were).
func (s State) paymentIgnoredBefore(verifiedBy, txHash string, logIndex *int) bool {
	return slices.Contains(s.IgnoredPayments, ignoredKey(verifiedBy, txHash, logIndex)) ||
		slices.Contains(s.IgnoredPayments, ignoredKey(verifiedBy, txHash, nil))
}

// ignoredAlready says whether the payment c is recorded as PaymentIgnored already: a processor's
// success without a hash once per attempt (the attempt it ended), any other once per transaction
// hash (and log index). Keyed by the hash alone, every hashless success after the first of the
// receipt found the first one's key and was never recorded, its funds left out of the history.
func (s State) ignoredAlready(c PaymentConfirmed) bool {
	if c.VerifiedBy == verifiedByProcessor && c.TransactionHash == "" {
		return slices.Contains(s.EndedAttempts, c.AttemptID)
	}
	return s.paymentIgnoredBefore(c.VerifiedBy, c.TransactionHash, c.LogIndex)
}

const verifiedByProcessor = "processor"

func (PaymentWindowExpired) eventType() string { return EventWindowExpired }
func (PaymentIgnored) eventType() string       { return EventPaymentIgnored }

// windowState is the window's part of State (embedded: its fields are State's).
type windowState struct {
	// WindowExpiredAt is when the expiry was recorded (0: not expired).
	WindowExpiredAt int64 `json:"windowExpiredAt,omitempty"`
	// MonitorUntil is the end of the late-payment watch of an expired receipt (Unix ms).
	MonitorUntil int64 `json:"monitorUntil,omitempty"`
	// IgnoredPayments are the payments recorded as PaymentIgnored (verifiedBy:transactionHash),
	// so a payment reported again is not recorded twice.
	IgnoredPayments []string `json:"ignoredPayments,omitempty"`
	// HeldQuotes is the latest quote per token (held until the window ends, see QuoteInWindow).
	HeldQuotes map[string]TokenQuoted `json:"heldQuotes,omitempty"`
	// EndedAttempts are the attempts whose processor success paid nothing (PaymentIgnored: an
	// underpayment): their session is over, so they hold no window open (OnrampOpen).
	EndedAttempts []string `json:"endedAttempts,omitempty"`
	// ProcessorIgnored are the processor successes that paid nothing, one per attempt, with their
	// amount and kind (processor_refund.go).
	ProcessorIgnored []ProcessorIgnoredPayment `json:"processorIgnored,omitempty"`
	// ResumedAttempts are the earlier sessions whose payment under way made them the current
	// attempt again, each once (window_resume.go).
	ResumedAttempts []string `json:"resumedAttempts,omitempty"`
	// FailedAttempts are the onramp attempts a payment failure (not the session category) was
	// reported for, applied or ignored: decided, never resumed (window_resume.go).
	FailedAttempts []string `json:"failedAttempts,omitempty"`
}

// Expired reports whether the receipt's payment window ended without payment (recorded).
func (s State) Expired() bool { return s.WindowExpiredAt != 0 }

// OnrampOpen reports whether an onramp attempt is open: the current attempt is an onramp session
// the processor has not decided, on a receipt still generated or pending, or on one failed (not
// expired) by an earlier attempt (a card retried after a decline: the receipt reads failed until
// the new session decides). A session whose success paid too little is decided: it stays the
// current attempt, but holds nothing open.
func (s State) OnrampOpen() bool {
	a, ok := s.Current()
	if !ok || a.Kind != "onramp" || slices.Contains(s.EndedAttempts, a.ID) {
		return false
	}
	retried := s.Status == StatusFailed && !s.Expired() && s.Failure != nil && s.Failure.AttemptID != a.ID
	return s.Status == StatusGenerated || s.Status == StatusPending || retried
}

// WindowDue reports whether the receipt's window has ended at `at` (Unix ms) and its expiry is
// to be recorded now: not while a payment mined in time waits for its confirmations
// (window_pending.go; Expire also ends that hold with the late-payment watch).
func (s State) WindowDue(at int64) bool {
	return s.windowEnded(at) && !s.paymentPendingInTime()
}

// windowEnded says whether the receipt's window has ended at `at` with nothing recorded or open
// to decide it otherwise (paid, ach_pending, expired already, an onramp session open).
func (s State) windowEnded(at int64) bool {
	if !s.Exists || s.Receipt.ExpiresAt == 0 || at < s.Receipt.ExpiresAt || s.Expired() || s.OnrampOpen() {
		return false
	}
	return s.Status == StatusGenerated || s.Status == StatusPending || s.Status == StatusFailed
}

// Expire decides the end of the payment window at `at` (Unix ms); monitor is
// PAYMENT_MONITOR_WINDOW. A receipt whose window has not ended, that is already expired, paid or
// beyond, ach_pending, has an onramp attempt open, or holds a payment mined in time that waits
// for its confirmations (until the late-payment watch ends), changes nothing. Errors: ErrNotFound.
func Expire(s State, at int64, monitor time.Duration) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if !s.windowEnded(at) || s.windowHeld(at, monitor.Milliseconds()) {
		return nil, nil
	}
	c, ok := failure.Lookup(CodeWindowExpired)
	if !ok {
		return nil, fmt.Errorf("failure catalog has no %s", CodeWindowExpired)
	}
	e := PaymentWindowExpired{ExpiresAt: s.Receipt.ExpiresAt, MonitorUntil: s.Receipt.ExpiresAt + monitor.Milliseconds(),
		AttemptID: s.CurrentAttempt, Code: c.Code, Category: c.Category, Reason: c.Description, Action: c.Action, At: at}
	if f := s.Failure; s.Status == StatusFailed && s.PreviousStatus == StatusACHPending && f != nil && f.At >= s.Receipt.ExpiresAt {
		// An ACH return days after the window ended: the window did not fail it, the bank did,
		// and the status reads keep saying so. (A card declined after the window ended still
		// reads as the expiry: the customer can only start again on a new receipt.)
		e.Code, e.Category, e.Reason, e.Action = f.Code, f.Category, f.Reason, f.Action
	}
	return []Event{e}, nil
}

// evolveWindow applies the window's end or a payment it ignored (Evolve's cases).
func (s *State) evolveWindow(e Event) {
	switch e := e.(type) {
	case PaymentWindowExpired:
		s.windowExpired(e)
	case PaymentIgnored:
		s.paymentIgnored(e)
	}
}

// windowExpired applies an expiry (evolveWindow's case). The failure belongs to no attempt, so a later
// failure of the current attempt is recorded as ignored, not taken as a repeat.
func (s *State) windowExpired(e PaymentWindowExpired) {
	s.Failure = &Failure{Code: e.Code, Category: e.Category, Reason: e.Reason, Action: e.Action, At: e.At}
	s.WindowExpiredAt, s.MonitorUntil = e.At, e.MonitorUntil
	s.setStatus(StatusFailed, e.At)
}

// errWindowEnded is the ErrState of an action an expired receipt refuses.
func errWindowEnded(s State) error {
	return fmt.Errorf("%w: the payment window ended at %s; only funds confirmed at the receipt's deposit address can pay it now",
		ErrState, time.UnixMilli(s.Receipt.ExpiresAt).UTC().Format(time.RFC3339))
}

// confirmExpired decides a confirmation of an expired, unpaid receipt (Confirm's case): a chain
// confirmation up to MonitorUntil pays it late; a later one, or a processor's, is ignored and
// recorded; a merchant's attestation is refused.
func confirmExpired(s State, c PaymentConfirmed) ([]Event, error) {
	ignore := func(why string) ([]Event, error) {
		if s.ignoredAlready(c) {
			return nil, nil
		}
		return []Event{ignoredOf(s, c, why)}, nil
	}
	switch c.VerifiedBy {
	case "chain":
		if c.chainTime() > s.MonitorUntil {
			return ignore(lateWhy)
		}
		c.PaidLate = true
		return []Event{c}, nil
	case "processor":
		return ignore("the processor reported a payment after the payment window ended; only funds confirmed at the deposit address pay an expired receipt")
	}
	return nil, errWindowEnded(s)
}

// ignoredOf is the PaymentIgnored of c: for a chain's transfer, with what the chain showed (its
// credit's decimals).
func ignoredOf(s State, c PaymentConfirmed, why string) PaymentIgnored {
	e := PaymentIgnored{AttemptID: c.AttemptID, VerifiedBy: c.VerifiedBy, TransactionHash: c.TransactionHash, Token: c.Token,
		Why: why, StatusAtArrival: s.Status, At: c.At}
	if c.VerifiedBy == verifiedByProcessor {
		return withSourceAmount(e, c.SourceAmountCents) // a success after the window: its amount, for the refund
	}
	if c.VerifiedBy != VerifiedByChain {
		return e
	}
	e.Sender, e.AmountUnits, e.LogIndex, e.BlockNumber, e.BlockHash = c.BuyerWallet, c.AmountUnits, c.LogIndex, c.BlockNumber, c.BlockHash
	li := ETHLogIndex
	if c.LogIndex != nil {
		li = *c.LogIndex
	}
	if cr, ok := s.Credit(c.TransactionHash, li); ok {
		e.Decimals = cr.Decimals
	}
	return e
}

// ignoreLate records, as PaymentIgnored, a transfer confirmed now (ObserveDeposit's case) after
// the late-payment watch of an expired, unpaid receipt: it pays nothing, even when it does not
// cover the receipt, and the history says what the chain showed. None within the watch, for a
// receipt paid or not expired, or a transfer not counted.
func ignoreLate(s State, c Credit, at int64) []Event {
	if !s.Expired() || s.Payment != nil || !c.Counts() {
		return nil
	}
	p := chainPayment(c, at)
	if p.chainTime() <= s.MonitorUntil {
		return nil // mined within the watch, however late the service saw it
	}
	if s.paymentIgnoredBefore(p.VerifiedBy, p.TransactionHash, p.LogIndex) {
		return nil
	}
	return []Event{ignoredOf(s, p, lateWhy)}
}

const lateWhy = "confirmed on chain after the late-payment watch ended (PAYMENT_MONITOR_WINDOW after expiry)"

// LateCredit says whether the transfer c paid nothing because it was confirmed after the
// receipt's late-payment watch (recorded as PaymentIgnored): its funds are refundable.
func (s State) LateCredit(c Credit) bool {
	var li *int
	if c.LogIndex != ETHLogIndex {
		li = &c.LogIndex
	}
	return c.Counts() && s.paymentIgnoredBefore(VerifiedByChain, c.TransactionHash, li)
}

// paymentIgnored remembers an ignored payment (evolveWindow's case). It changes no status, except
// that the short completion of the receipt's accepted ACH payment (Reopened) makes it pending.
func (s *State) paymentIgnored(e PaymentIgnored) {
	s.IgnoredPayments = append(slices.Clip(s.IgnoredPayments), ignoredKey(e.VerifiedBy, e.TransactionHash, e.LogIndex))
	if e.VerifiedBy == verifiedByProcessor && e.AttemptID != "" && !slices.Contains(s.EndedAttempts, e.AttemptID) {
		s.EndedAttempts = append(slices.Clip(s.EndedAttempts), e.AttemptID)
		s.processorIgnored(e)
	}
	if e.Reopened && s.Status == StatusACHPending {
		s.setStatus(StatusPending, e.At)
	}
}
