package dashboard

import (
	"net/url"
	"strings"

	"github.com/payledger/payledger/domain/receipt"
)

// dashUnknownToken is a transfer of a token not configured, as a receipt's page lists it
// (receipt.DepositUnknownToken, issue 41): the contract, the sender and the raw amount the log
// reported; no decimals or price are known, so it is never shown as money. Refund is the state of
// its counted refund ("" none: the row offers "Refund with wallet", an ERC-20 transfer of the raw
// amount of that contract to the sender, and the hash of a refund sent elsewhere).
type dashUnknownToken struct {
	ReceiptID, TokenAddress, Sender, AmountUnits, TransactionHash string
	LogIndex                                                      int
	URL                                                           string // the transaction on EXPLORER_URL; "" without one
	Refund                                                        string // claimed | processed | ""
	ChainID                                                       int64  // the wallet's chain; 0: no wallet refund offered
}

// dashUnknownTokens lists the receipt's unconfigured tokens; their wallet refund is not offered
// while the receipt's open claims are at receipt.MaxOpenRefundClaims (its claim would be refused
// after the wallet sent the tokens).
func dashUnknownTokens(st receipt.State, explorer string, chainID int64) []dashUnknownToken {
	if st.OpenRefundClaims() >= receipt.MaxOpenRefundClaims {
		chainID = 0
	}
	var out []dashUnknownToken
	for _, u := range st.UnknownTokens {
		d := dashUnknownToken{ReceiptID: st.Receipt.ReceiptID, TokenAddress: u.TokenAddress, Sender: u.Sender, AmountUnits: u.AmountUnits, TransactionHash: u.TransactionHash,
			LogIndex: u.LogIndex, ChainID: chainID}
		if explorer != "" {
			d.URL = strings.TrimRight(explorer, "/") + "/tx/" + url.PathEscape(u.TransactionHash)
		}
		if r, ok := st.UnknownRefund(receipt.UnknownTransferRef{TransactionHash: u.TransactionHash, LogIndex: u.LogIndex}); ok {
			d.Refund = r.State
		}
		out = append(out, d)
	}
	return out
}
