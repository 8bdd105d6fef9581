package receipt

import (
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// Sweep floor (stop 70): a failed receipt's funds are swept only when they are worth the sweep.
//   - Since stop 69 a failed receipt's confirmed credits are swept to its split (swept.go), and the
//     first DustFreeCredits transfers of any size are credited: one base unit of a token, or one
//     wei, sent to an expired receipt's deposit in its late watch made the operator pay the
//     deposit's deployment and flush (about 57,000 gas) for a transfer that cost its sender less.
//   - So a failed receipt's unswept funds (Unswept) are swept only once they are worth at least
//     1/DustShare of its price, and at least a cent's worth (dustShare, the dust rule's bound),
//     and at least the operator's configured minimum in USD cents when that is more. Each token
//     is valued at the receipt's own requirement in it (its quote, its EUR rate): no price is read.
//   - Funds under the floor are not lost: they stay at the deposit, bound to the split, and the
//     sweeper lists them for the operator. A later credited transfer changes the receipt, and the
//     funds are judged again together with it: once over the floor they are swept, all of them.
//   - Funds in a token the receipt cannot value (no quote, an EUR receipt without a rate) count
//     nothing toward the floor: swept unconditionally, they would reopen the one-unit sweep for
//     every such receipt. They are listed too, and an operator may flush them by hand.
//   - A receipt that is not failed (paid, paid late, refunded...) is swept as before, whatever the
//     size: what it received is the merchant's payment.

// SweepHeld says whether the receipt's unswept funds stay at its deposit for now (the rules
// above): it is failed, something is unswept, and what that is worth is under the sweep floor,
// the larger of 1/DustShare of its price (at least a cent's worth) and minUSDCents.
func (s State) SweepHeld(minUSDCents money.Cents) bool {
	if s.Status != StatusFailed || s.Receipt.Total <= 0 {
		return false
	}
	left := s.Unswept()
	if len(left) == 0 {
		return false
	}
	share, _ := s.shareOf(left)
	// share < 1/dustShare(total)
	if new(big.Rat).Mul(share, big.NewRat(dustShare(s.Receipt.Total), 1)).Cmp(big.NewRat(1, 1)) < 0 {
		return true
	}
	if minUSDCents <= 0 {
		return false
	}
	usd, err := s.requiredIn("USDC") // the price in USD (an EUR receipt's at its rate)
	if err != nil {
		return true // cannot be valued in USD: the configured minimum cannot be met
	}
	cents := new(big.Rat).Mul(share, usd.Amount)
	cents.Mul(cents, big.NewRat(100, 1))
	return cents.Cmp(big.NewRat(int64(minUSDCents), 1)) < 0
}

// UnsweptUnvalued lists the tokens of the receipt's unswept funds it cannot value (no quote, an
// EUR receipt without a rate): they count nothing toward the sweep floor.
func (s State) UnsweptUnvalued() []string {
	_, unvalued := s.shareOf(s.Unswept())
	return unvalued
}

// shareOf is the share of the receipt's price that units (base units by token) are worth, each
// token at the receipt's requirement in it, and the tokens it cannot value, which add nothing.
func (s State) shareOf(units map[string]*big.Int) (*big.Rat, []string) {
	share := new(big.Rat)
	var unvalued []string
	for token, n := range units {
		r, err := s.requiredIn(token)
		dec, ok := s.decimalsOf(token)
		if err != nil || !ok || r.Amount.Sign() <= 0 {
			unvalued = append(unvalued, token)
			continue
		}
		// n / (amount × 10^decimals)
		whole := new(big.Rat).Mul(r.Amount, new(big.Rat).SetInt(money.Pow10(dec)))
		share.Add(share, new(big.Rat).Quo(new(big.Rat).SetInt(n), whole))
	}
	slices.Sort(unvalued) // map order is random; the list is logged
	return share, unvalued
}

// decimalsOf is the decimals of token as the receipt's credits in it say.
func (s State) decimalsOf(token string) (uint8, bool) {
	for _, c := range s.Credits {
		if strings.EqualFold(c.Token, token) {
			return c.Decimals, true
		}
	}
	return 0, false
}
