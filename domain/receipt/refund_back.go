package receipt

import (
	"fmt"
	"math/big"
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
//   - A receipt records at most MaxRefundRecords refunds with a transaction hash, of any state
//     and kind, claims and refunds on the merchant's word alike (ErrRefundRecordsExhausted, stop
//     67): a refused claim frees its place among the open ones, and a claim of an unrelated real
//     transaction is refused within a few blocks, so claiming again and again grew the receipt's
//     stream (replayed by every command and verifier step of it) and the refunds[] of every read
//     and webhook of it without end.
//   - These rules are of claims, which the chain proves; a refund recorded on the merchant's word
//     (a receipt paid by the onramp processor or at a terminal) proves nothing and is unchanged.
//   - A transaction's transfers of a token are netted for the customer's addresses (netBack,
//     stop 64): what it sends them and takes back from them (a transferFrom their allowance
//     lets anyone make) is no refund.
//   - A payer's transfer is never a refund, also when the payer is the merchant's own wallet
//     that topped up an underpayment (stop 64): the chain shows a payer, not whose wallet it is,
//     and a customer's second wallet sending to its first must not prove a refund. The merchant
//     refunds from another wallet.
//   - The sender is not otherwise checked: the merchant may refund from any wallet (an exchange's,
//     a treasury's), so a third party's unrelated transfer to the customer can still be claimed.

// MaxOpenRefundClaims bounds a receipt's claims waiting for the chain's verdict.
const MaxOpenRefundClaims = 5

// ErrRefundTarget: the refund names the receipt's own transaction, or refundTo is where the
// customer paid (an ErrState: 400 invalid_input).
var ErrRefundTarget = fmt.Errorf("%w: the refund must be money going back to the customer", ErrState)

// MaxRefundRecords bounds the refunds with a transaction hash a receipt ever records: a receipt
// refunded in parts has a few, with a refused claim or two; 50 is far beyond that.
const MaxRefundRecords = 50

// ErrRefundRecordsExhausted: the receipt has recorded MaxRefundRecords refunds with a
// transaction hash (an ErrState; a lifetime bound, it never lifts).
var ErrRefundRecordsExhausted = fmt.Errorf("%w: a receipt records at most %d refunds with a transaction hash", ErrState, MaxRefundRecords)

// ErrRefundClaimsOpen: MaxOpenRefundClaims claims of the receipt already wait for the chain's
// verdict (an ErrState).
var ErrRefundClaimsOpen = fmt.Errorf("%w: at most %d refund claims of a receipt wait for the chain's verdict at once", ErrState, MaxOpenRefundClaims)

// CheckClaim applies the rules above to a refund with a transaction hash (RequestRefund applies
// them; the refund command asks first, before it reserves the hash). Errors: ErrRefundTarget,
// ErrRefundClaimsOpen, ErrRefundRecordsExhausted.
// A refund on the merchant's word (a receipt not paid on chain: nothing is proven of it) is
// checked only against MaxRefundRecords; a refund of the excess is a claim whatever paid the
// receipt (refund_excess.go).
func (s State) CheckClaim(o RefundOrder) error {
	if o.TransactionHash == "" {
		return nil
	}
	if len(s.Refunds) >= MaxRefundRecords {
		return ErrRefundRecordsExhausted
	}
	if o.Processor { // on the merchant's word whatever paid the receipt (refund_processor.go)
		return nil
	}
	if !s.PaidOnChain() && s.Status != StatusFailed && o.Unknown == nil && !o.Excess {
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

// netBack is what the transfers of one token (of) move to the addresses to, net, within one
// transaction: what goes back to them (goesBack) less what leaves them for any address outside
// to. A transaction that sends the customer a refund and pulls it back (a transferFrom the
// customer's allowance lets anyone make, or a contract's) leaves the customer nothing, and
// counting only what arrived made it a refund. The addresses to are one party: a transfer
// between two of them neither adds nor takes away. sum is nil when nothing goes back; it may
// be zero or less when more leaves than arrives. first is the first address money went back to.
func netBack(transfers []ChainTransfer, of func(ChainTransfer) bool, to, senders []string) (sum *big.Int, first string) {
	sum, out, first := netFlows(transfers, of, to, senders)
	if sum != nil {
		sum.Sub(sum, out)
	}
	return sum, first
}

// netFlows is netBack's two sides: what goes back to the addresses to (nil when nothing does)
// and what leaves them for an address outside to.
func netFlows(transfers []ChainTransfer, of func(ChainTransfer) bool, to, senders []string) (sum, out *big.Int, first string) {
	out = new(big.Int)
	for _, t := range transfers {
		units, ok := new(big.Int).SetString(t.AmountUnits, 10)
		if !ok || units.Sign() <= 0 || !of(t) {
			continue
		}
		from, dest := strings.ToLower(t.From), strings.ToLower(t.To)
		// One party (stop 68): a transfer from one of the addresses to to another is neither. It
		// counted as money going back when its sender was the named refundTo (no payer), so 5
		// sent to refundTo and on to the payer in one transaction proved a refund of 10.
		switch in, leaves := slices.Contains(to, dest), slices.Contains(to, from); {
		case in && !leaves && goesBack(t, senders):
			if sum == nil {
				sum, first = new(big.Int), dest
			}
			sum.Add(sum, units)
		case leaves && !in:
			out.Add(out, units)
		}
	}
	return sum, out, first
}

// backFrom is the sender, lower case, of the first transfer (of) that goes back to the
// addresses to (netFlows' first): where a refund came from, as the chain shows it ("" for none).
// It is shown on the refund, not checked: any sender but the customer's own addresses, its
// deposit and its split may refund (stop 68).
func backFrom(transfers []ChainTransfer, of func(ChainTransfer) bool, to, senders []string) string {
	for _, t := range transfers {
		units, ok := new(big.Int).SetString(t.AmountUnits, 10)
		from := strings.ToLower(t.From)
		if ok && units.Sign() > 0 && of(t) && slices.Contains(to, strings.ToLower(t.To)) && !slices.Contains(to, from) && goesBack(t, senders) {
			return from
		}
	}
	return ""
}

// ofToken selects the transfers of a configured token (by symbol).
func ofToken(token string) func(ChainTransfer) bool {
	return func(t ChainTransfer) bool { return t.Token != "" && strings.EqualFold(t.Token, token) }
}
