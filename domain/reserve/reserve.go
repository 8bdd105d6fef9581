// Package reserve is the rule of the reserve a merchant is advised to hold against refunds
// (GET /api/reserve/recommend): pure decimal arithmetic over the trailing volume.
package reserve

import (
	"math/big"
	"strconv"

	"github.com/payledger/payledger/domain/money"
)

// DefaultRatio applies to currencies the site configuration gives no ratio for.
const DefaultRatio = 0.1

// WindowDays is the trailing window of volume the recommendation looks at.
const WindowDays = 30

// Recommended holds the configured share of the trailing volume plus what refunds have been
// taking: volume × (ratio + refunded/volume), in exact decimals rounded half up to the cent.
// The ratio is read as the decimal it was configured as (its shortest form), not its binary
// approximation. refundRate is refunded/volume for display (0 without volume).
func Recommended(volume, refunded int64, ratio float64) (money.Cents, float64) {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(ratio, 'f', -1, 64))
	if !ok {
		r = new(big.Rat)
	}
	share := new(big.Rat).Mul(big.NewRat(volume, 1), r)
	refundRate := 0.0
	if volume > 0 {
		refundRate, _ = big.NewRat(refunded, volume).Float64()
		share.Add(share, big.NewRat(refunded, 1)) // volume × refunded/volume
	}
	return money.RoundHalfUp(share), refundRate
}
