package transport

import "github.com/payledger/payledger/domain/receipt"

// depositView is what a receipt read shows of its payment by deposit address (DESIGN 9):
// amounts are decimal strings in units of the requested token; amountReceived is null until a
// transfer is seen and counts confirmed transfers only.
type depositView struct {
	DepositAddress *string `json:"depositAddress"`
	AmountRequired *string `json:"amountRequired"`
	AmountReceived *string `json:"amountReceived"`
	PaidLate       bool    `json:"paidLate"`
}

func viewDeposit(st receipt.State) depositView {
	return depositView{DepositAddress: nullable(st.DepositAddress()), AmountRequired: nullable(st.AmountRequired()),
		AmountReceived: nullable(st.AmountReceived()), PaidLate: st.PaidLate()}
}

// depositFields adds the deposit fields to a status view or webhook payload v; before a payment,
// the first transfer seen at the deposit address is the transaction and its sender the buyer.
func depositFields(v map[string]any, st receipt.State) {
	v["depositAddress"], v["amountRequired"] = nullable(st.DepositAddress()), nullable(st.AmountRequired())
	v["amountReceived"], v["paidLate"] = nullable(st.AmountReceived()), st.PaidLate()
	if c, ok := st.FirstCredit(); ok && st.Payment == nil && st.Status != receipt.StatusFailed {
		v["transactionHash"], v["buyerWallet"], v["token"] = c.TransactionHash, c.Sender, c.Token
	}
}
