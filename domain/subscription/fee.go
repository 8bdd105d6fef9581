package subscription

import (
	"math/big"

	"github.com/payledger/payledger/domain/money"
)

// PlatformFeeBps is the platform fee on a subscription charge (spec: 0.5%, as for one-time
// payments), paid by the split's platform share.
const PlatformFeeBps = 50

// PlatformFee is the platform fee on a charge of price: PlatformFeeBps of it, half-up to the cent.
// Charging records it on the charge and billing reports it, so both take it from here.
func PlatformFee(price money.Cents) money.Cents {
	return money.RoundHalfUp(big.NewRat(int64(price)*PlatformFeeBps, 10_000))
}
