package receipt

import "errors"

// CanRequestRefund reports whether a refund request without a transaction hash (what the
// dashboard's refund form sends: an amount, the whole unrefunded total by default, and a reason)
// would be accepted now. It asks Refund itself, so that the form is shown exactly when the domain
// takes it (a receipt with a refund already requested refuses another request without a hash).
func CanRequestRefund(s State) bool {
	_, err := Refund(s, 0, "eligibility", "", "", 0)
	return err == nil
}

// eligibilityHash stands for a refund's transaction hash when asking whether one would be
// taken; a merchant who used it for a real refund only makes it "already counted", which asks
// the same question.
const eligibilityHash = "0x0000000000000000000000000000000000000000000000000000000000000000"

// CanClaimRefund reports whether a refund with its transaction hash (Refund with wallet, or a
// hash typed on the form) would be accepted now: also for a receipt whose refund is already
// requested (the refund sent covers it) and for a failed receipt's funds that paid nothing,
// where a request without a hash is refused. The dashboard offers the refund form when either
// this or CanRequestRefund says so.
func CanClaimRefund(s State) bool {
	_, err := Refund(s, 0, "eligibility", eligibilityHash, "", 0)
	return err == nil || errors.Is(err, ErrRefundHashUsed)
}

// ClaimableCents is what a refund with a hash may be for now: the refundable amount and what
// requests without a hash asked for (the refund sent covers them).
func (s State) ClaimableCents() int64 { return s.RefundableCents() + s.hashlessRequested() }
