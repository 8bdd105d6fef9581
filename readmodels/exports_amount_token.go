package readmodels

import (
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// The receipts export's token beside amountReceived (stop 69). amountReceived of a receipt paid
// by deposit is in its requested token (receipt.State.RequestedToken: the first transfer's token
// when it can be priced, else the latest quote's when it is not a stable one, else USDC), and
// the token cell was the payment's: a receipt paid by USDC after 0.002 ETH was exported as
// "USDC,0.004". The row now names the token its amount is in, decided by the domain's rule on
// the parts of the state that rule reads (amountTokenParts); a receipt paid in one token is
// exported as before.

// amountTokenParts are the receipts export's columns of the state that RequestedToken reads: the
// first transfer not dropped (any status: the payment does not change the amounts' token), the
// latest quote's token, the quotes and the EUR/USD rate. Only a row with an amount received
// needs them.
const amountTokenParts = `CASE WHEN r.amount_received IS NOT NULL THEN (SELECT c->>'token'
		FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.state->'credits') = 'array' THEN r.state->'credits' END) WITH ORDINALITY AS x(c, n)
		WHERE NOT coalesce((c->>'dropped')::boolean, false) ORDER BY n LIMIT 1) END,
		CASE WHEN r.amount_received IS NOT NULL THEN r.state->>'quotedToken' END,
		CASE WHEN r.amount_received IS NOT NULL THEN r.state->'quotes' END,
		CASE WHEN r.amount_received IS NOT NULL THEN r.state->>'eurUsdRate' END`

// amountTokenRow is a row's amountTokenParts.
type amountTokenRow struct {
	firstToken, quotedToken, eurUSDRate *string
	quotes                              map[string]string
}

// token is the requested token of the receipt whose parts a is, of currency and total (cents).
func (a amountTokenRow) token(currency string, total int64) string {
	st := receipt.State{QuotedToken: deref(a.quotedToken), Quotes: a.quotes, EURUSDRate: deref(a.eurUSDRate)}
	st.Receipt.Currency, st.Receipt.Total = currency, money.Cents(total)
	if a.firstToken != nil {
		st.Credits = []receipt.Credit{{Token: *a.firstToken}}
	}
	return st.RequestedToken()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
