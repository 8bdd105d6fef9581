package transport

import (
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// depositView is what a receipt read shows of its payment by deposit address (DESIGN 9):
// amounts are decimal strings in units of the requested token, amountToken (stop 69);
// amountReceived is null until a transfer is seen and counts confirmed transfers only.
type depositView struct {
	DepositAddress *string `json:"depositAddress"`
	AmountRequired *string `json:"amountRequired"`
	AmountReceived *string `json:"amountReceived"`
	AmountToken    string  `json:"amountToken"`
	PaidLate       bool    `json:"paidLate"`
}

func viewDeposit(st receipt.State) depositView {
	return depositView{DepositAddress: nullable(st.DepositAddress()), AmountRequired: nullable(st.AmountRequired()),
		AmountReceived: nullable(st.AmountReceived()), AmountToken: readmodels.AmountTokenOf(st), PaidLate: st.PaidLate()}
}
