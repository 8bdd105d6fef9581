package dashboard

import (
	"net/url"
	"strings"

	"github.com/payledger/payledger/domain/receipt"
)

// dashUnknownToken is a transfer of a token not configured, as a receipt's page lists it
// (receipt.DepositUnknownToken, issue 41): the contract, the sender and the raw amount the log
// reported; no decimals or price are known, so it is never shown as money.
type dashUnknownToken struct {
	TokenAddress, Sender, AmountUnits, TransactionHash string
	URL                                                string // the transaction on EXPLORER_URL; "" without one
}

func dashUnknownTokens(st receipt.State, explorer string) []dashUnknownToken {
	var out []dashUnknownToken
	for _, u := range st.UnknownTokens {
		d := dashUnknownToken{TokenAddress: u.TokenAddress, Sender: u.Sender, AmountUnits: u.AmountUnits, TransactionHash: u.TransactionHash}
		if explorer != "" {
			d.URL = strings.TrimRight(explorer, "/") + "/tx/" + url.PathEscape(u.TransactionHash)
		}
		out = append(out, d)
	}
	return out
}
