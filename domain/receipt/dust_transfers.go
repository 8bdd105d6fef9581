package receipt

import (
	"math/big"

	"github.com/payledger/payledger/domain/money"
)

// Dust (stop 68): a receipt's credits are bounded by what they are worth, not by their number.
//   - A deposit address is public (the payment page shows it), and a contract can log hundreds of
//     one-base-unit transfers to it in one transaction for cents of gas on an L2. Each one was a
//     credit for ever: the receipt's stream grew without bound from anyone's input, and every
//     load of it replayed them all (seconds for thousands).
//   - Once a receipt holds DustFreeCredits credits, a new transfer is recorded only when it is
//     worth at least 1/DustShare of what the receipt requires in its token (for a receipt under
//     1.00, a cent's worth: the requirement over the total in cents), or at least what is still
//     due in it (the share not yet covered by the transfers seen and not dropped, those still
//     waiting for their depth counted as if confirmed). A smaller one is dust: no event at all,
//     not even the quote that would have valued it.
//   - So an attacker's dust never keeps a payment out: the customer's payment, or the part that
//     completes it, is recorded whatever came before it. Each credit past DustFreeCredits brings
//     the merchant's deposit at least 1% of the receipt's price (and at least a cent), or closes
//     what is due: the stream grows only as far as its sender pays the merchant. The first
//     DustFreeCredits transfers, of any size, are recorded as before: a payment in a few parts
//     never meets the rule.
//   - What is not recorded stays at the deposit address, bound to the merchant's split: a sweep
//     moves the token's whole balance (DepositSwept records what it moved), so the merchant gets
//     it with the deposit's next sweep. ETH dust at a deposit with an open ETH quote is found
//     again by the detector's balance read, and is recorded as one balance credit once together
//     it is no dust any more.
//   - A transfer already credited (confirmed, dropped, moved by a reorg, seen again) is judged as
//     always: the rule only keeps new credits out. A transfer in a token the receipt cannot value
//     (no quote and no price, an EUR receipt without a rate) is recorded: it may be the payment.

// DustFreeCredits is how many credits a receipt records before the dust rule applies.
const DustFreeCredits = 20

// DustShare: past DustFreeCredits, a transfer worth less than 1/DustShare of what the receipt
// requires in its token, or less than a cent's worth when that is more (a receipt under 1.00),
// and less than what is still due in it, is not recorded.
const DustShare = 100

// isDust says whether the new transfer t is dust for s (the rule above): s holds DustFreeCredits
// credits or more, and t brings less than 1/DustShare of the requirement in its token and less
// than what is still due in it. s is the state after any quote that values t.
func (s State) isDust(t DepositTransferSeen) bool {
	if len(s.Credits) < DustFreeCredits {
		return false
	}
	req, err := s.requiredIn(t.Token)
	units, ok := new(big.Int).SetString(t.AmountUnits, 10)
	if err != nil || !ok || req.Amount.Sign() <= 0 {
		return false // cannot be valued: it may be the payment
	}
	// units < requirement / share, in base units: units × share × den < num × 10^decimals
	lhs := new(big.Int).Mul(units, big.NewInt(dustShare(s.Receipt.Total)))
	lhs.Mul(lhs, req.Amount.Denom())
	if lhs.Cmp(new(big.Int).Mul(req.Amount.Num(), money.Pow10(t.Decimals))) >= 0 {
		return false
	}
	// What still completes the payment is the share not covered of the threshold (the
	// requirement less its tolerance), not of the requirement that DueUnits asks for: a transfer
	// that pays the receipt within the tolerance is never dust.
	least := Required{Amount: new(big.Rat).Mul(req.Amount, big.NewRat(int64(10000-req.ToleranceBps), 10000))}
	due := s.seenCounted().DueUnits(least, t.Decimals)
	return due.Sign() <= 0 || units.Cmp(due) < 0
}

// dustShare is the share of a receipt of total cents under which a transfer may be dust: 1/DustShare,
// and at least a cent's worth (1/total) for a receipt under DustShare cents, where 1% of a 0.05
// receipt would let a credit be bought for 0.0005 USDC.
func dustShare(total money.Cents) int64 {
	if t := int64(total); t > 0 && t < DustShare {
		return t
	}
	return DustShare
}

// seenCounted is s with every credit not dropped counted as confirmed: what is due once the
// transfers already seen reach their depth. Counting only confirmed ones, a batch of dust in the
// block after an underpayment one unit short would all be "what is still due".
func (s State) seenCounted() State {
	seen := make([]Credit, len(s.Credits))
	for i, c := range s.Credits {
		c.Confirmed = c.Confirmed || !c.Dropped
		seen[i] = c
	}
	s.Credits = seen
	return s
}
