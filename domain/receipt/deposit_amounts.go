package receipt

import (
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// Amounts of a payment by deposit address, in units of the requested token: the token of the
// first transfer seen when it can be priced, else the latest quote's token when it is not a
// stable one, else USDC. Stable tokens count one to one among themselves; a transfer in another
// token counts by what it brings of that token's own required amount (required.go), so a mixed
// payment is judged by the share of the requirement each transfer covers.

// RequestedToken is the token the receipt's amounts are expressed in.
func (s State) RequestedToken() string {
	c, ok := s.FirstCredit()
	return s.requestedToken(c, ok)
}

// requestedToken is RequestedToken, given the first credit (FirstCredit).
func (s State) requestedToken(first Credit, ok bool) string {
	if ok {
		if _, err := s.requiredIn(first.Token); err == nil {
			return strings.ToUpper(first.Token)
		}
	}
	if q := strings.ToUpper(s.QuotedToken); q != "" && !IsStable(q) {
		if _, err := s.requiredIn(q); err == nil {
			return q
		}
	}
	return "USDC"
}

// requiredIn is what a payment of the receipt in token must bring.
func (s State) requiredIn(token string) (Required, error) {
	token = strings.ToUpper(token)
	return RequiredAmount(s, token, s.Quotes[token])
}

// AmountRequired is what the receipt asks for in the requested token, a decimal string ("" when
// it cannot be priced yet: an EUR receipt without a rate, a token without a quote).
func (s State) AmountRequired() string { return s.amountRequired(s.RequestedToken()) }

// amountRequired is AmountRequired, given the requested token.
func (s State) amountRequired(token string) string {
	r, err := s.requiredIn(token)
	if err != nil {
		return ""
	}
	return decimalString(r.Amount, IsStable(token))
}

// AmountReceived is what the confirmed transfers brought, in the requested token, a decimal
// string; "" (null) until a transfer is seen.
func (s State) AmountReceived() string {
	if len(s.Credits) == 0 {
		return ""
	}
	t := receivedUnits{}
	for _, c := range s.Credits {
		t.add(c, 1)
	}
	return s.amountReceived(s.RequestedToken(), t)
}

// receivedUnits are the base units the counted credits brought, by token (upper case) and
// decimals: what AmountReceived sums, with one conversion per token rather than per credit. It
// is exact (big integers, then rationals), so the amount is the one a sum credit by credit gives,
// and a receipt.Folder keeps it as its credits change (deposit_fold_amounts.go). A credit whose
// units are no integer adds nothing.
type receivedUnits map[unitsKey]*big.Int

// unitsKey is a token in upper case, as requiredIn prices it, and its decimals.
type unitsKey struct {
	token    string
	decimals uint8
}

// add adds credit c's units (sign -1: takes them away) if it counts.
func (t receivedUnits) add(c Credit, sign int) {
	if !c.Counts() {
		return
	}
	units, ok := new(big.Int).SetString(c.AmountUnits, 10)
	if !ok {
		return
	}
	k := unitsKey{strings.ToUpper(c.Token), c.Decimals}
	sum := t[k]
	if sum == nil {
		sum = new(big.Int)
		t[k] = sum
	}
	if sign < 0 {
		sum.Sub(sum, units)
	} else {
		sum.Add(sum, units)
	}
}

// amountReceived is AmountReceived of a state with credits, given the requested token and the
// counted units: each token's units count one to one among stable tokens, else by the share of
// their own token's requirement they bring; a token that cannot be priced adds nothing.
func (s State) amountReceived(token string, t receivedUnits) string {
	want, err := s.requiredIn(token)
	if err != nil {
		return ""
	}
	sum := new(big.Rat)
	for k, units := range t { // any order: the sum is exact
		r, err := s.requiredIn(k.token)
		if err != nil {
			continue
		}
		amount := new(big.Rat).SetFrac(units, money.Pow10(k.decimals))
		switch {
		case IsStable(token) && IsStable(k.token):
			// one to one, also when the requirement is 0 (a receipt generated with a zero total
			// before Generate refused it), where the ratio below would divide by it
		case r.Amount.Sign() <= 0:
			continue
		default:
			amount.Mul(amount, new(big.Rat).Quo(want.Amount, r.Amount))
		}
		sum.Add(sum, amount)
	}
	return decimalString(sum, IsStable(token))
}

// Covered says whether the confirmed transfers pay the receipt: the shares of the requirement
// they cover (each against its own token's required amount less its tolerance) add up to one.
func (s State) Covered() bool {
	num, den := s.coveredShare()
	return num.Cmp(den) >= 0
}

// coveredShare is the share of the requirement the confirmed transfers cover, num/den, each
// token's base units against its own threshold; a transfer in a token that cannot be priced
// covers nothing. The fraction is not reduced: Covered only compares its terms, and a GCD per
// transfer (big.Rat's) was most of a confirmation's cost (issue 38). The transfers of one token
// are summed first (countedUnits): one term per transfer made den the product of one threshold
// per transfer, and a deposit sent 5,000 transfers of one base unit each (a contract can log
// hundreds in one transaction, for cents of gas) took its decisions 4.6 minutes of CPU.
func (s State) coveredShare() (num, den *big.Int) {
	num, den = new(big.Int), big.NewInt(1)
	for _, t := range s.countedUnits() {
		r, err := s.requiredIn(t.token)
		if err != nil || r.Amount.Sign() <= 0 {
			continue
		}
		// units / threshold, where threshold = amount × 10^decimals × (10000 - tolerance) / 10000
		// in base units: (units × 10000 × amount's denominator) / (amount's numerator ×
		// 10^decimals × (10000 - tolerance)), added to num/den over the product of denominators
		units := new(big.Int).Mul(t.units, big.NewInt(10000))
		units.Mul(units, r.Amount.Denom())
		threshold := new(big.Int).Mul(r.Amount.Num(), money.Pow10(t.decimals))
		threshold.Mul(threshold, big.NewInt(int64(10000-r.ToleranceBps)))
		num.Mul(num, threshold)
		num.Add(num, units.Mul(units, den))
		den.Mul(den, threshold)
	}
	if back := s.returnedCents(); back > 0 && s.Receipt.Total > 0 {
		// less back/total: num/den - back/total = (num × total - back × den) / (den × total)
		total := big.NewInt(int64(s.Receipt.Total))
		num.Mul(num, total)
		num.Sub(num, new(big.Int).Mul(big.NewInt(back), den))
		den.Mul(den, total)
	}
	return num, den
}

// tokenUnits is the base units the counted transfers of one token (and decimals) brought.
type tokenUnits struct {
	token    string
	decimals uint8
	units    *big.Int
}

// countedUnits sums the base units of the counted credits by token (without case) and decimals,
// in the order each first appears; a credit whose units are no integer adds nothing.
func (s State) countedUnits() []tokenUnits {
	var out []tokenUnits
	for _, c := range s.Credits {
		if !c.Counts() {
			continue
		}
		units, ok := new(big.Int).SetString(c.AmountUnits, 10)
		if !ok {
			continue
		}
		i := slices.IndexFunc(out, func(t tokenUnits) bool { return t.decimals == c.Decimals && strings.EqualFold(t.token, c.Token) })
		if i < 0 {
			out = append(out, tokenUnits{token: c.Token, decimals: c.Decimals, units: units})
			continue
		}
		out[i].units.Add(out[i].units, units)
	}
	return out
}

// returnedCents is what of the transfers of a receipt not paid yet went back to the customer, in
// cents of its total: the refunds of a failed receipt's funds, processed or claimed (a claim
// the verifier refuses stops counting). Those transfers stay among the credits, as history, but
// no longer pay anything: a late transfer pays the receipt only with what the customer did not
// get back. (It used to count them, and 5 USDC refunded plus 5 USDC late paid a 10 USD receipt.)
func (s State) returnedCents() int64 {
	if s.Payment != nil {
		return 0 // a paid receipt's refunds return its payment; its coverage is history
	}
	return int64(s.RefundedCents + s.RequestedCents)
}

// DueUnits is what a payment whose requirement is req, in a token of decimals, must still bring
// in base units: req less the share the confirmed transfers already cover (coveredShare, as
// Covered judges them; a transfer not yet confirmed may still leave the chain, so it reduces
// nothing), never below zero. It is rounded up: paying exactly it makes Covered true, where a
// half-up rounding could leave the payment a fraction of a base unit short of the threshold.
// Nothing received: the whole requirement, rounded up.
func (s State) DueUnits(req Required, decimals uint8) *big.Int {
	rest := new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).SetFrac(s.coveredShare()))
	if rest.Sign() <= 0 || req.Amount == nil || req.Amount.Sign() <= 0 {
		return new(big.Int)
	}
	due := rest.Mul(rest, req.Amount)
	due.Mul(due, new(big.Rat).SetInt(money.Pow10(decimals)))
	return ceil(due)
}

// ceil is the smallest integer not below the non-negative r.
func ceil(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// decimalString writes r with at most 18 places, rounded half up, without trailing zeros beyond
// two places for a stable token (an amount of money: "12.30") or beyond none otherwise.
func decimalString(r *big.Rat, stable bool) string {
	keep := 0
	if stable {
		keep = 2
	}
	if s, ok := money.ExactDecimal(r, 18, keep); ok {
		return s
	}
	return ratString(r, stable)
}

// ratString is decimalString through math/big, for any rational (money.ExactDecimal writes the
// short decimals, a receipt's total in cents among them, without it).
func ratString(r *big.Rat, stable bool) string {
	s := r.FloatString(18)
	if !strings.Contains(s, ".") {
		return s
	}
	keep := 0
	if stable {
		keep = 2
	}
	whole, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	for len(frac) < keep {
		frac += "0"
	}
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}
