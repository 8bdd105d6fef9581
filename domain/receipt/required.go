package receipt

import (
	"errors"
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// Rules of the required amount of a wallet payment (DESIGN 8), one definition for the payment
// page, the quote and the chain verifier:
//   - a stable token (StableTokens) is worth 1 USD: a payment in it must bring the receipt total
//     exactly; an EUR receipt's total goes through the latest recorded EUR/USD rate;
//   - any other token must bring the receipt's latest quote in that token, less at most
//     QuotedToleranceBps;
//   - amounts are token units, turned into base units rounded half up for the verifier's
//     figure (Required.Units); what the payment page asks (State.DueUnits) is rounded up instead,
//     and less what confirmed transfers already brought, so that paying it always covers.

// StableTokens are the tokens fixed at 1 USD: they need no price and no quote.
var StableTokens = []string{"USDC", "USDT"}

// QuotedToleranceBps is how far below the quote a payment in a quoted token still pays (1%).
const QuotedToleranceBps = 100

// Errors of RequiredAmount: the payment cannot be priced yet.
var (
	ErrNoEURRate = errors.New("the receipt is in EUR and no EUR/USD rate was recorded")
	ErrNoQuote   = errors.New("the receipt has no quote in the token")
)

// IsStable reports whether token (as written in PaymentTokens) is a stable token.
func IsStable(token string) bool { return slices.Contains(StableTokens, token) }

// Required is what a wallet payment of a receipt must bring.
type Required struct {
	Amount       *big.Rat // token units
	ToleranceBps uint     // how far below Amount still pays
}

// Units is the required amount in base units of a token with decimals, rounded half up.
func (r Required) Units(decimals uint8) *big.Int {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	return money.RoundHalfUpInt(new(big.Rat).Mul(r.Amount, new(big.Rat).SetInt(scale)))
}

// RequiredAmount is what a payment of s in token must bring; quoted is the latest quote's
// amount in token ("" for none; State.Quotes keeps it). Tokens compare without case. Errors:
// ErrNoEURRate (a stable token for an EUR receipt without a recorded rate), ErrNoQuote (another
// token without a positive quote).
func RequiredAmount(s State, token, quoted string) (Required, error) {
	if IsStable(strings.ToUpper(token)) {
		usd := new(big.Rat).SetFrac64(int64(s.Receipt.Total), 100)
		if s.Receipt.Currency == "EUR" {
			r, ok := new(big.Rat).SetString(s.EURUSDRate)
			if !ok || r.Sign() <= 0 {
				return Required{}, ErrNoEURRate
			}
			usd.Mul(usd, r)
		}
		return Required{Amount: usd}, nil
	}
	amount, ok := new(big.Rat).SetString(quoted)
	if !ok || amount.Sign() <= 0 {
		return Required{}, ErrNoQuote
	}
	return Required{Amount: amount, ToleranceBps: QuotedToleranceBps}, nil
}
