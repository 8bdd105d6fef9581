package subscription

import (
	"strings"
	"unicode/utf8"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/text"
)

// Plan rules (DESIGN 8; out of the HTTP handler since issue 39): a plan's name is 1 to
// PlanNameMax characters once trimmed, its description at most PlanDescriptionMax, neither with
// control characters or bidi overrides (text.Reorders; the description may have line breaks and
// tabs), its price a positive USD amount of whole cents written without an exponent, its period
// one of Periods. A broken rule is ErrInvalid with the rule as its whole text (the API's
// message). Plans are listed publicly to the customers who sign for them: "Basic" and U+202E
// made a plan's name read as another name or price, as a shop name or a line label could before
// the same rule applied to them.
const (
	PlanNameMax        = 100
	PlanDescriptionMax = 1000
)

// Periods are the billing periods a plan may have, in order.
var Periods = []string{string(Weekly), string(Biweekly), string(Monthly), string(Quarterly), string(Yearly)}

// planRule is a broken plan rule: ErrInvalid, whose text is the rule alone.
type planRule string

func (e planRule) Error() string        { return string(e) }
func (e planRule) Is(target error) bool { return target == ErrInvalid }

// PlanName is name trimmed, or the rule it breaks.
func PlanName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" || utf8.RuneCountInString(n) > PlanNameMax {
		return "", planRule("name must be 1 to 100 characters")
	}
	if strings.IndexFunc(n, text.Reorders) >= 0 {
		return "", planRule("name must not contain control characters or bidirectional overrides")
	}
	return n, nil
}

// PlanDescription checks a plan's description.
func PlanDescription(d string) error {
	if utf8.RuneCountInString(d) > PlanDescriptionMax {
		return planRule("description must be at most 1000 characters")
	}
	if strings.IndexFunc(d, func(r rune) bool { return text.Reorders(r) && r != '\n' && r != '\r' && r != '\t' }) >= 0 {
		return planRule("description must not contain control characters (other than line breaks and tabs) or bidirectional overrides")
	}
	return nil
}

// planPriceMaxChars bounds a price's text before it is parsed: the largest price (10^13 USD,
// money.ParseCents' bound) has 17 characters with its cents, and parsing a megabyte of digits
// took seconds of CPU per request.
const planPriceMaxChars = 32

// PlanPrice is the price written as the decimal usd (a JSON number's text), or the rule it breaks.
func PlanPrice(usd string) (money.Cents, error) {
	if len(usd) > planPriceMaxChars {
		return 0, planRule("priceUsd must be a number greater than 0 with at most 2 decimals")
	}
	cents, err := money.ParseCents(usd)
	if err != nil || cents <= 0 || strings.ContainsAny(usd, "eE") {
		return 0, planRule("priceUsd must be a number greater than 0 with at most 2 decimals")
	}
	return cents, nil
}

// PlanPeriod checks a plan's period.
func PlanPeriod(p string) error {
	if _, ok := Period(p).Seconds(); !ok {
		return planRule("period must be one of " + strings.Join(Periods, ", "))
	}
	return nil
}
