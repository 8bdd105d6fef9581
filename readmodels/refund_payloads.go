package readmodels

import (
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// RefundsPayload is what a receipt read, its status read and its webhook payload show of its
// refunds (DESIGN 10, "Refunds"): refundedUsd counts processed refunds only, of the order once it
// is paid (never more than the total), of the funds received while it is not;
// refundedBeforePaymentUsd, once paid, the funds returned before a late payment paid it (stop 69);
// refundedExcessUsd what was refunded of what the customer sent beyond the total (a paid
// receipt's refunds of its excess, a receipt's without a payment beyond the total; stop 70); the
// three add up to every processed refund. refunds lists every refund with a transaction hash (and
// those processed on the merchant's word), oldest first.
type RefundsPayload struct {
	RefundedUSD              float64         `json:"refundedUsd"`
	RefundedBeforePaymentUSD float64         `json:"refundedBeforePaymentUsd,omitempty"`
	RefundedExcessUSD        float64         `json:"refundedExcessUsd,omitempty"`
	Refunds                  []RefundPayload `json:"refunds"`
	// ProcessorPaymentsToRefund counts the receipt's card or bank payments that the processor
	// completed and the receipt does not count (ProcessorPaymentsToRefundOf, stop 69).
	ProcessorPaymentsToRefund int `json:"processorPaymentsToRefund"`
	// ProcessorToRefundUSD is the sum of those payments' amounts (receipt.State.ProcessorToRefundCents,
	// stop 70), omitted when 0; a payment whose amount the processor did not report is left out.
	ProcessorToRefundUSD float64 `json:"processorToRefundUsd,omitempty"`
	// ProcessorRefundedUSD is what the merchant refunded of those payments, apart from the order
	// (receipt.State.ProcessorRefundedCents, stop 71), omitted when 0: with refundedUsd,
	// refundedBeforePaymentUsd and refundedExcessUsd it makes every processed refund.
	ProcessorRefundedUSD float64 `json:"processorRefundedUsd,omitempty"`
	// UnvaluedExcess is what the receipt's transfers brought in tokens it has no price for, per
	// token in its own units (receipt.State.UnvaluedExcess, stop 71), omitted when none: not in
	// amountReceived nor in the excess, owed back all the same.
	UnvaluedExcess []receipt.TokenAmount `json:"unvaluedExcess,omitempty"`
}

// RefundPayload is one refund. token, amount and to are what the chain showed once processed on
// chain proof (to: the address the merchant named, before); reason is the refusal's reason for a
// refused claim, else the merchant's reason; proof says what a processed refund rests on; from is
// where a refund proven on chain came from, absent otherwise: the chain proves that the money
// reached the customer, not whose money it was, so the merchant and the customer can see it.
type RefundPayload struct {
	AmountUSD       float64 `json:"amountUsd"`
	Token           *string `json:"token"`
	Amount          *string `json:"amount"`
	To              *string `json:"to"`
	From            *string `json:"from,omitempty"` // proof chain only: the sender of its first transfer back (stop 68)
	TransactionHash *string `json:"transactionHash"`
	State           string  `json:"state"`
	Reason          string  `json:"reason"`
	Proof           *string `json:"proof"`
	// UnknownTransfer: the refund returns this unconfigured token's transfer; token is then its
	// contract, amount raw units (the amount received while claimed), amountUsd 0.
	UnknownTransfer *receipt.UnknownTransferRef `json:"unknownTransfer"`
	// Excess: the refund returns what the customer sent beyond the total, not the order (stop 70).
	Excess bool `json:"excess,omitempty"`
	// ProcessorPayment: the refund returns processor payments the receipt does not count, not the
	// order (stop 71).
	ProcessorPayment bool `json:"processorPayment,omitempty"`
}

// RefundsPayloadOf renders st's refunds.
func RefundsPayloadOf(st receipt.State) RefundsPayload {
	out := RefundsPayload{RefundedUSD: st.OrderRefundedCents().Float(), RefundedBeforePaymentUSD: st.RefundedBeforePaymentCents().Float(),
		RefundedExcessUSD: st.RefundedExcessCents().Float(), Refunds: make([]RefundPayload, 0, len(st.Refunds)),
		ProcessorPaymentsToRefund: ProcessorPaymentsToRefundOf(st), ProcessorRefundedUSD: st.ProcessorRefundedCents.Float(),
		UnvaluedExcess: st.UnvaluedExcess()}
	toRefund, _ := st.ProcessorToRefundCents()
	out.ProcessorToRefundUSD = toRefund.Float()
	for _, r := range st.Refunds {
		v := RefundPayload{AmountUSD: money.Cents(r.AmountCents).Float(), Token: nullString(r.Token), Amount: nullString(r.TokenAmount()),
			To: nullString(firstOf(r.Recipient, r.RefundTo)), From: nullString(r.Sender), TransactionHash: nullString(r.TransactionHash), State: r.State,
			Reason: r.Reason, Proof: nullString(r.Proof), Excess: r.OfExcess, ProcessorPayment: r.OfProcessor}
		if r.State == receipt.RefundStateRefused {
			v.Reason = r.RefusedReason
		}
		if r.Unknown != nil {
			u, _ := st.UnknownTokenOf(*r.Unknown)
			v.UnknownTransfer, v.To = r.Unknown, nullString(firstOf(r.Recipient, r.RefundTo, u.Sender))
		}
		out.Refunds = append(out.Refunds, v)
	}
	return out
}

// ReceiptRefunded is receipt.refunded: a refund processed, on chain proof or the merchant's word.
type ReceiptRefunded struct {
	ReceiptID       string  `json:"receiptId"`
	Status          string  `json:"status"`
	AmountUSD       float64 `json:"amountUsd"`
	TransactionHash *string `json:"transactionHash"`
	Proof           string  `json:"proof"`
	Token           *string `json:"token"`
	Amount          *string `json:"amount"`
	To              *string `json:"to"`
	From            *string `json:"from,omitempty"` // proof chain only: the sender of the refund's first transfer back (stop 68)
	RefundedUSD     float64 `json:"refundedUsd"`
	ProcessedAt     int64   `json:"processedAt"`
	Excess          bool    `json:"excess,omitempty"` // a refund of what the customer sent beyond the total (stop 70)
	// ProcessorPayment: a refund of processor payments the receipt does not count (stop 71).
	ProcessorPayment bool `json:"processorPayment,omitempty"`
}

// ReceiptRefundedOf renders st's processed refund p.
func ReceiptRefundedOf(st receipt.State, p receipt.RefundProcessed) ReceiptRefunded {
	rec, _ := st.CountedRefund(p.TransactionHash)
	return ReceiptRefunded{ReceiptID: st.Receipt.ReceiptID, Status: string(st.Status), AmountUSD: money.Cents(p.AmountCents).Float(),
		TransactionHash: nullString(p.TransactionHash), Proof: firstOf(p.Proof, receipt.ProofMerchant), Token: nullString(p.Token),
		Amount: nullString(rec.TokenAmount()), To: nullString(p.Recipient), From: nullString(p.Sender), RefundedUSD: st.OrderRefundedCents().Float(), ProcessedAt: p.At,
		Excess: rec.OfExcess, ProcessorPayment: p.OfProcessor}
}

// ReceiptRefundFailed is receipt.refund_failed: a claimed refund the chain does not support.
type ReceiptRefundFailed struct {
	ReceiptID       string  `json:"receiptId"`
	Status          string  `json:"status"`
	AmountUSD       float64 `json:"amountUsd"`
	TransactionHash string  `json:"transactionHash"`
	Reason          string  `json:"reason"`
	RefundedUSD     float64 `json:"refundedUsd"`
	RefusedAt       int64   `json:"refusedAt"`
	Excess          bool    `json:"excess,omitempty"` // a claim of a refund of the excess (stop 70)
}

// ReceiptRefundFailedOf renders st's refused claim r.
func ReceiptRefundFailedOf(st receipt.State, r receipt.RefundRefused) ReceiptRefundFailed {
	return ReceiptRefundFailed{ReceiptID: st.Receipt.ReceiptID, Status: string(st.Status), AmountUSD: money.Cents(r.AmountCents).Float(),
		TransactionHash: r.TransactionHash, Reason: r.Reason, RefundedUSD: st.OrderRefundedCents().Float(), RefusedAt: r.At, Excess: refusedExcess(st, r)}
}

// refusedExcess says whether the refused claim r was of the excess: the latest refused record of its hash.
func refusedExcess(st receipt.State, r receipt.RefundRefused) bool {
	for i := len(st.Refunds) - 1; i >= 0; i-- {
		if x := st.Refunds[i]; x.State == receipt.RefundStateRefused && x.TransactionHash == r.TransactionHash {
			return x.OfExcess
		}
	}
	return false
}
