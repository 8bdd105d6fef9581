package receipt

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/payledger/payledger/domain/money"
)

// TestCoveredIsTheSharesSum: the unreduced fraction Covered compares judges as the sum of each
// counting transfer's reduced share (the big.Rat form it replaced) does, over random payments of
// one to four transfers in stable and quoted tokens, around the threshold.
func TestCoveredIsTheSharesSum(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 8))
	quoted := Evolve(depositReceipt(), TokenQuoted{Token: "ETH", Amount: "0.005", At: 2})
	for i := range 5000 {
		s := quoted
		for j := range 1 + rnd.IntN(4) {
			tx := fmt.Sprintf("0x%d-%d", i, j)
			switch rnd.IntN(3) {
			case 0:
				s = credited(s, tx, "ETH", fmt.Sprint(rnd.Int64N(6_000_000_000_000_000)), 18, rnd.IntN(5) > 0)
			case 1:
				s = credited(s, tx, "USDT", fmt.Sprint(rnd.Int64N(14_000_000)), 6, rnd.IntN(5) > 0)
			default:
				s = credited(s, tx, "USDC", fmt.Sprint(4_000_000+rnd.Int64N(9_000_000)), 6, rnd.IntN(5) > 0)
			}
		}
		if got, want := s.Covered(), reducedShares(s).Cmp(big.NewRat(1, 1)) >= 0; got != want {
			t.Fatalf("%+v: Covered %v, the shares' sum says %v", s.Credits, got, want)
		}
	}
}

// reducedShares is the share of the requirement the counting transfers cover, one big.Rat each.
func reducedShares(s State) *big.Rat {
	share := new(big.Rat)
	for _, c := range s.Credits {
		r, err := s.requiredIn(c.Token)
		units, ok := new(big.Int).SetString(c.AmountUnits, 10)
		if !c.Counts() || err != nil || !ok || r.Amount.Sign() <= 0 {
			continue
		}
		threshold := new(big.Rat).Mul(r.Amount, new(big.Rat).SetInt(money.Pow10(c.Decimals)))
		threshold.Mul(threshold, big.NewRat(int64(10000-r.ToleranceBps), 10000))
		share.Add(share, new(big.Rat).Quo(new(big.Rat).SetInt(units), threshold))
	}
	return share
}
