package receipt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// A processor's success that pays nothing is money the processor collected for the merchant and
// the receipt does not count: the merchant owes it back (processorPaymentsToRefund counts them).
// Stop 70 keeps, per such payment (one per attempt, as EndedAttempts), its amount in USD cents and
// why it paid nothing, so the reads can show the sum (ProcessorToRefundCents), not only a count;
// stop 71 takes off what the merchant refunded of them (refund_processor.go).

// Kinds of a processor success that paid nothing (PaymentIgnored.Kind).
const (
	IgnoredKindDuplicate = "duplicate" // a second payment of a receipt already paid
	IgnoredKindUnderpaid = "underpaid" // less than was due (a short ACH completion too)
	IgnoredKindLate      = "late"      // after the payment window ended
	IgnoredKindForeign   = "foreign"   // a session the service started for another receipt
)

// ProcessorIgnoredPayment is a processor success that paid nothing: its attempt, kind and amount
// (USD cents; AmountKnown false when the processor reported none: a success without an amount
// recorded as underpaid against what its session was asked for).
type ProcessorIgnoredPayment struct {
	AttemptID   string      `json:"attemptId"`
	Kind        string      `json:"kind,omitempty"`
	Cents       money.Cents `json:"cents,omitempty"`
	AmountKnown bool        `json:"amountKnown,omitempty"`
}

// ProcessorToRefundCents is the sum, in USD cents, of the processor successes the receipt does
// not count and the merchant owes back: the same payments processorPaymentsToRefund counts (its
// own onramp sessions' successes recorded as paying nothing, EndedAttempts, never the attempt
// that paid it), those whose amount is known, less what the merchant refunded of them
// (refund_processor.go, stop 71: before, it never decreased). unknown is how many of them have
// no amount: the processor reported none, or the state was folded before stop 70 kept amounts
// (a read model row not projected again since), so a reader can tell a sum that leaves some out.
func (s State) ProcessorToRefundCents() (cents money.Cents, unknown int) {
	cents, _, unknown = s.processorPaymentsOwed()
	return cents, unknown
}

// processorIgnoredOwed are the processor successes the receipt does not count and owes back, in
// the order their attempts ended, with their kind and amount (AmountKnown false without one).
func (s State) processorIgnoredOwed() []ProcessorIgnoredPayment {
	var out []ProcessorIgnoredPayment
	for _, id := range s.EndedAttempts {
		a, ok := s.Attempts[id]
		if !ok || a.Kind != "onramp" || s.Payment != nil && s.Payment.AttemptID == id {
			continue
		}
		i := slices.IndexFunc(s.ProcessorIgnored, func(p ProcessorIgnoredPayment) bool { return p.AttemptID == id })
		if i < 0 {
			out = append(out, ProcessorIgnoredPayment{AttemptID: id})
			continue
		}
		out = append(out, s.ProcessorIgnored[i])
	}
	return out
}

// processorIgnored keeps the processor success e paid nothing with its kind and amount
// (paymentIgnored's case, the first event of its attempt).
func (s *State) processorIgnored(e PaymentIgnored) {
	p := ProcessorIgnoredPayment{AttemptID: e.AttemptID, Kind: e.Kind}
	if p.Kind == "" {
		p.Kind = ignoredKind(e.Why)
	}
	if e.Token == "USD" && e.Decimals == 2 && e.AmountUnits != "" {
		if n, err := strconv.ParseInt(e.AmountUnits, 10, 64); err == nil && n >= 0 {
			p.Cents, p.AmountKnown = money.Cents(n), true
		}
	}
	s.ProcessorIgnored = append(s.ProcessorIgnored[:len(s.ProcessorIgnored):len(s.ProcessorIgnored)], p)
}

// ignoredKind is the kind of a processor success that paid nothing, from the why it was recorded
// with (the texts of confirmProcessor, confirmAsked, decideForeignSession and confirmExpired); ""
// for any other.
func ignoredKind(why string) string {
	switch {
	case strings.HasPrefix(why, "duplicate payment"):
		return IgnoredKindDuplicate
	case strings.HasPrefix(why, "underpaid"):
		return IgnoredKindUnderpaid
	case strings.HasPrefix(why, "the processor reported a payment after the payment window ended"):
		return IgnoredKindLate
	case strings.HasPrefix(why, "the session ") && strings.Contains(why, " was started by the service for receipt "):
		return IgnoredKindForeign
	}
	return ""
}

// withSourceAmount is e with the processor's source amount (USD cents: token USD, decimals 2),
// when reported, and its kind.
func withSourceAmount(e PaymentIgnored, cents *int64) PaymentIgnored {
	if cents != nil {
		e.Token, e.AmountUnits, e.Decimals = "USD", fmt.Sprint(*cents), 2
	}
	e.Kind = ignoredKind(e.Why)
	return e
}
