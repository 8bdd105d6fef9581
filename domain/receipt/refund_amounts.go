package receipt

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// Amounts of refunds (refund.go's rules): what can be refunded, to whom, in which token, and how
// much of it a refund of some cents must bring at the receipt's paid rate.

// RefundableCents is what can still be refunded now, hashless requests aside: the unrefunded
// total of a settled receipt's order (OrderUnrefunded: funds returned before a late payment do
// not count against it, stop 69, nor its excess's refunds, ExcessUnrefundedCents, stop 70); for
// a failed one, what its confirmed transfers are worth (fundsCents: every unit, also beyond the
// total, stop 70) less what is refunded or claimed.
func (s State) RefundableCents() int64 {
	if s.Status == StatusFailed {
		return max(0, s.fundsCents()-int64(s.RefundedCents+s.RequestedCents))
	}
	return s.OrderUnrefunded()
}

// ReceivedCents is what the confirmed transfers are worth in cents of the total, at the receipt's
// rate, rounded down and at most the total (0 without any).
func (s State) ReceivedCents() int64 { return min(s.fundsCents(), int64(s.Receipt.Total)) }

// fundsCents is what the confirmed transfers are worth in cents of the total, at the receipt's
// rate, rounded down, not capped at the total: a failed receipt paid twice after its late watch
// (10 + 10 of a 10.00 total) holds 20.00 of the customer's, all of it refundable (stop 70; the
// cap gave back at most 10).
func (s State) fundsCents() int64 {
	received, ok1 := new(big.Rat).SetString(s.AmountReceived())
	required, ok2 := new(big.Rat).SetString(s.AmountRequired())
	if !ok1 || !ok2 || required.Sign() <= 0 || received.Sign() <= 0 {
		return 0
	}
	share := new(big.Rat).Mul(new(big.Rat).Quo(received, required), new(big.Rat).SetInt64(int64(s.Receipt.Total)))
	return new(big.Int).Quo(share.Num(), share.Denom()).Int64()
}

// RefundRecipients are the addresses a refund of the receipt may go to, lower case: the senders
// of its counted transfers and the wallet of its wallet payment.
func (s State) RefundRecipients() []string {
	var out []string
	add := func(a string) {
		if a = strings.ToLower(a); a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if s.Payment != nil {
		add(s.Payment.BuyerWallet)
	}
	for _, c := range s.Credits {
		if c.Counts() {
			add(c.Sender)
		}
	}
	return out
}

// PaidTokens are the tokens the receipt was paid in (upper case): its counted transfers' and its
// wallet payment's.
func (s State) PaidTokens() []string {
	var out []string
	add := func(t string) {
		if t = strings.ToUpper(t); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if s.Payment != nil {
		add(s.Payment.Token)
	}
	for _, c := range s.Credits {
		if c.Counts() {
			add(c.Token)
		}
	}
	return out
}

// RefundUnits is what a refund of amountCents must bring in token (of decimals), in base units,
// at the receipt's paid rate: the same share of the token's required amount as amountCents is of
// the total (a stable token one to one in USD, another token at the quote it was paid at),
// rounded half up. Errors: ErrAmount, ErrNoEURRate, ErrNoQuote.
func (s State) RefundUnits(amountCents int64, token string, decimals uint8) (*big.Int, error) {
	if s.Receipt.Total <= 0 || amountCents <= 0 {
		return nil, fmt.Errorf("%w: nothing to refund", ErrAmount)
	}
	req, err := s.requiredIn(token)
	if err != nil {
		return nil, err
	}
	share := new(big.Rat).Mul(req.Amount, big.NewRat(amountCents, int64(s.Receipt.Total)))
	return money.RoundHalfUpInt(share.Mul(share, new(big.Rat).SetInt(money.Pow10(decimals)))), nil
}

// TokenAmount is the verified amount in token units, a decimal string ("" when not verified).
func (r RefundRecord) TokenAmount() string {
	if r.Unknown != nil { // raw units: an unconfigured token's decimals are not known
		return r.AmountUnits
	}
	units, ok := new(big.Int).SetString(r.AmountUnits, 10)
	if !ok {
		return ""
	}
	return decimalString(new(big.Rat).SetFrac(units, money.Pow10(r.Decimals)), len(r.Parts) > 0 || IsStable(strings.ToUpper(r.Token)))
}

// RefundTotalUnits is the receipt's total in token (of decimals) base units at the paid rate,
// rounded up: a refund of c cents that sends ceil(c × RefundTotalUnits / total) base units always
// brings RefundUnits(c). Errors: RefundUnits'.
func (s State) RefundTotalUnits(token string, decimals uint8) (*big.Int, error) {
	if s.Receipt.Total <= 0 {
		return nil, fmt.Errorf("%w: nothing to refund", ErrAmount)
	}
	req, err := s.requiredIn(token)
	if err != nil {
		return nil, err
	}
	return ceil(new(big.Rat).Mul(req.Amount, new(big.Rat).SetInt(money.Pow10(decimals)))), nil
}

// ExcessCents is what an overpaid receipt received beyond its requirement, in cents of its total,
// rounded down, less the funds already returned (0 when not overpaid): what "refund the excess"
// proposes. Funds a failed receipt refunded before a late payment paid it (fundsReturnedCents)
// stay among the transfers received; counted as excess again, they were proposed a second time
// (stop 68: 4 USDC returned, then 10 paid late, read as 4.00 of excess).
func (s State) ExcessCents() int64 {
	received, ok1 := new(big.Rat).SetString(s.AmountReceived())
	required, ok2 := new(big.Rat).SetString(s.AmountRequired())
	if !ok1 || !ok2 || required.Sign() <= 0 || received.Cmp(required) <= 0 {
		return 0
	}
	share := new(big.Rat).Quo(new(big.Rat).Sub(received, required), required)
	share.Mul(share, new(big.Rat).SetInt64(int64(s.Receipt.Total)))
	return max(0, new(big.Int).Quo(share.Num(), share.Denom()).Int64()-s.fundsReturnedCents())
}

// fundsReturnedCents is what the receipt's refunds of funds that paid nothing (OfFunds) return,
// claimed or processed: a claim counts until it is refused, as it does against the payment
// (returnedCents).
func (s State) fundsReturnedCents() int64 {
	var n int64
	for _, r := range s.Refunds {
		if r.OfFunds && r.Counted() && r.Unknown == nil {
			n += r.AmountCents
		}
	}
	return n
}
