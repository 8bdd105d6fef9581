package dashboard

import (
	"math/big"
	"net/url"
	"strings"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/transport/page"
)

// dashTransfer is one transfer to a receipt's deposit address as the dashboard lists it.
type dashTransfer struct {
	Sender, Amount, Token, Hash string
	// URL is the transaction on the chain's block explorer (EXPLORER_URL); "" without one.
	URL       string
	Confirmed bool
	Dropped   bool // left the chain in a reorg: listed, counted for nothing
	Late      bool // confirmed after the late-payment watch: paid nothing, refundable (issue 41)
}

// dashTransfers lists every transfer seen at the receipt's deposit address, in the order seen:
// a receipt paid in two transfers shows both, not only the last one's hash.
func dashTransfers(st receipt.State, explorer string) []dashTransfer {
	var out []dashTransfer
	for _, c := range st.Credits {
		t := dashTransfer{Sender: c.Sender, Token: strings.ToUpper(c.Token), Hash: c.TransactionHash, Confirmed: c.Confirmed, Dropped: c.Dropped,
			Amount: unitsAmount(c.AmountUnits, c.Decimals), Late: st.LateCredit(c)}
		if explorer != "" {
			t.URL = strings.TrimRight(explorer, "/") + "/tx/" + url.PathEscape(c.TransactionHash)
		}
		out = append(out, t)
	}
	return out
}

// dashDeposit fills a receipt paid by deposit address with that address and, in the token asked
// for (the payment page's RequestedToken), the amount required and, once a transfer is seen, the
// amount received (DESIGN 9), as the payment page shows them: an underpaid receipt reads
// "received 5 of 10 USDC" without adding up the transfers. A receipt without a deposit address
// (paid by card, at a terminal) shows none of them: its required amount in a token means nothing.
func dashDeposit(v *dashReceiptView, st receipt.State) {
	if v.DepositAddress = st.DepositAddress(); v.DepositAddress == "" {
		return
	}
	token := st.RequestedToken()
	if required := st.AmountRequired(); required != "" {
		v.AmountRequired = page.TokenAmount(required) + " " + token
	}
	if received := st.AmountReceived(); received != "" {
		v.AmountReceived = page.TokenAmount(received) + " " + token
	}
}

// unitsAmount writes base units of a token of decimals as a decimal amount ("5000000", 6 →
// "5.00"); the units as they are when they do not parse.
func unitsAmount(units string, decimals uint8) string {
	n, ok := new(big.Int).SetString(units, 10)
	if !ok {
		return units
	}
	r := new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
	return page.TokenAmount(r.FloatString(int(decimals)))
}

// totalsOnce blanks the tax and fee of the totals when the receipt's lines already show them,
// so that each is shown once.
func totalsOnce(v *dashReceiptView) {
	for _, l := range v.Lines {
		switch l.Kind {
		case receipt.KindTax:
			v.Tax = ""
		case receipt.KindFee:
			v.Fee = ""
		}
	}
}
