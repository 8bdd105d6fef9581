package receipt

import (
	"fmt"
	"slices"
	"strings"
)

// What counts as money going back (stop 60, docs/decisions.md "Stop 60: refunds found short by a review"):
//   - A transfer proves a refund only if it goes back to the customer: one sent by the customer
//     (a payer of the receipt: its wallet payment's or an attempt's wallet, a sender of any
//     transfer it was credited or of an unconfigured token), by its deposit address or the split
//     it sweeps to, or to its own sender, is never a refund (refundSenders).
//   - A refund names where it went with refundTo; the receipt's own deposit address and split are
//     where the customer paid, not where a refund goes (ErrRefundTarget).
//   - A transaction of the receipt itself (its payment, a transfer it was credited, a sweep, the
//     split's distribution) is never its refund (ErrRefundTarget).
//   - At most MaxOpenRefundClaims claims of a receipt wait for the chain's verdict at once
//     (ErrRefundClaimsOpen): a made-up hash waits an hour before it is refused, and the refund
//     verifier reads every open claim each step.
//   - These rules are of claims, which the chain proves; a refund recorded on the merchant's word
//     (a receipt paid by the onramp processor or at a terminal) proves nothing and is unchanged.
//   - The sender is not otherwise checked: the merchant may refund from any wallet (an exchange's,
//     a treasury's), so a third party's unrelated transfer to the customer can still be claimed.

// MaxOpenRefundClaims bounds a receipt's claims waiting for the chain's verdict.
const MaxOpenRefundClaims = 5

// ErrRefundTarget: the refund names the receipt's own transaction, or refundTo is where the
// customer paid (an ErrState: 400 invalid_input).
var ErrRefundTarget = fmt.Errorf("%w: the refund must be money going back to the customer", ErrState)

// ErrRefundClaimsOpen: MaxOpenRefundClaims claims of the receipt already wait for the chain's
// verdict (an ErrState).
var ErrRefundClaimsOpen = fmt.Errorf("%w: at most %d refund claims of a receipt wait for the chain's verdict at once", ErrState, MaxOpenRefundClaims)

// CheckClaim applies the rules above to a refund with a transaction hash (RequestRefund applies
// them; the refund command asks first, before it reserves the hash). Errors: ErrRefundTarget,
// ErrRefundClaimsOpen.
// A refund on the merchant's word (a receipt not paid on chain: nothing is proven of it) is not
// checked.
func (s State) CheckClaim(o RefundOrder) error {
	if o.TransactionHash == "" || !s.PaidOnChain() && s.Status != StatusFailed && o.Unknown == nil {
		return nil
	}
	if s.ownTransaction(o.TransactionHash) {
		return fmt.Errorf("%w: %s is a transaction of the receipt's own payment, not a refund", ErrRefundTarget, o.TransactionHash)
	}
	if to := o.RefundTo; to != "" && (strings.EqualFold(to, s.DepositAddress()) || strings.EqualFold(to, s.DepositSplit())) {
		return fmt.Errorf("%w: refundTo %s is where the receipt was paid, not the customer", ErrRefundTarget, to)
	}
	if s.OpenRefundClaims() >= MaxOpenRefundClaims {
		return ErrRefundClaimsOpen
	}
	return nil
}

// OpenRefundClaims is how many of the receipt's refunds are claims waiting for the chain's verdict.
func (s State) OpenRefundClaims() int {
	n := 0
	for _, r := range s.Refunds {
		if r.State == RefundStateClaimed {
			n++
		}
	}
	return n
}

// ownTransaction says whether hash is a transaction of the receipt itself: its payment, an
// attempt's, a transfer it was credited (or of an unconfigured token), a sweep, the split's
// distribution.
func (s State) ownTransaction(hash string) bool {
	is := func(h string) bool { return h != "" && strings.EqualFold(h, hash) }
	if s.Payment != nil && is(s.Payment.TransactionHash) || is(s.SplitTxHash) {
		return true
	}
	for _, a := range s.Attempts {
		if is(a.TransactionHash) {
			return true
		}
	}
	for _, c := range s.Credits {
		if is(c.TransactionHash) {
			return true
		}
	}
	for _, u := range s.UnknownTokens {
		if is(u.TransactionHash) {
			return true
		}
	}
	for _, w := range s.Sweeps {
		if is(w.TransactionHash) {
			return true
		}
	}
	return false
}

// refundSenders are the addresses, lower case, whose transfers never refund the receipt: its
// payers as the chain or the processor showed them (the payment's wallet, any sender it was
// credited), its deposit address and its split. An attempt's wallet is not one: a payment hint
// names it unverified, and a hint naming the merchant's wallet would make its refunds unprovable.
func (s State) refundSenders() []string {
	out := s.RefundRecipients()
	add := func(a string) {
		if a = strings.ToLower(a); a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	for _, c := range s.Credits {
		add(c.Sender)
	}
	for _, u := range s.UnknownTokens {
		add(u.Sender)
	}
	add(s.DepositAddress())
	add(s.DepositSplit())
	return out
}

// goesBack says whether t is money going back to the customer: not sent by one of senders
// (refundSenders), nor to its own sender.
func goesBack(t ChainTransfer, senders []string) bool {
	from := strings.ToLower(t.From)
	return !slices.Contains(senders, from) && !strings.EqualFold(from, t.To)
}
