package transport

import (
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// refundsView is what a receipt read, its status read and its webhook payload show of its refunds
// (DESIGN 10, "Refunds"): refundedUsd counts processed refunds only; refunds lists every refund
// with a transaction hash (and those processed on the merchant's word), oldest first.
type refundsView struct {
	RefundedUSD float64      `json:"refundedUsd"`
	Refunds     []refundView `json:"refunds"`
}

// refundView is one refund. token, amount and to are what the chain showed once processed on
// chain proof (to: the address the merchant named, before); reason is the refusal's reason for a
// refused claim, else the merchant's reason; proof says what a processed refund rests on.
type refundView struct {
	AmountUSD       float64 `json:"amountUsd"`
	Token           *string `json:"token"`
	Amount          *string `json:"amount"`
	To              *string `json:"to"`
	TransactionHash *string `json:"transactionHash"`
	State           string  `json:"state"`
	Reason          string  `json:"reason"`
	Proof           *string `json:"proof"`
}

func viewRefunds(st receipt.State) refundsView {
	out := refundsView{RefundedUSD: st.RefundedCents.Float(), Refunds: make([]refundView, 0, len(st.Refunds))}
	for _, r := range st.Refunds {
		v := refundView{AmountUSD: money.Cents(r.AmountCents).Float(), Token: nullable(r.Token), Amount: nullable(r.TokenAmount()),
			To: nullable(first(r.Recipient, r.RefundTo)), TransactionHash: nullable(r.TransactionHash), State: r.State, Reason: r.Reason,
			Proof: nullable(r.Proof)}
		if r.State == receipt.RefundStateRefused {
			v.Reason = r.RefusedReason
		}
		out.Refunds = append(out.Refunds, v)
	}
	return out
}

// refundFields adds the refund fields to a status view or webhook payload v.
func refundFields(v map[string]any, st receipt.State) {
	r := viewRefunds(st)
	v["refundedUsd"], v["refunds"] = r.RefundedUSD, r.Refunds
}
