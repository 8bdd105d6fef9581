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
