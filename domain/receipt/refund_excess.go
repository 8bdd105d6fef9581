package receipt

import (
	"fmt"

	"github.com/payledger/payledger/domain/money"
)

// Refunds of the excess (stop 70). Every unit a customer sent can be given back once and never
// more (refund_funds.go); what a paid receipt received beyond its total is not the order's:
//   - A refund of the excess (RefundOrder.Excess) returns what the receipt received beyond its
//     requirement, at most ExcessUnrefundedCents (ExcessCents less the excess refunds processed
//     or claimed), apart from the order's refunds: those stay bounded by the total
//     (OrderUnrefunded) and refundedUsd keeps showing them alone. Before, a customer who sent 12
//     for a 10 order got at most 10 back through the ledger, the excess counting against the total.
//   - The merchant says which it returns: a refund is the order's unless it says it returns the
//     excess. Neither is taken first on its own: refunding "the overpayment" must leave the
//     order's refundable amount as it was, and a refund of part of the order must not read as the
//     excess given back.
//   - It is a claim with its transaction hash, proven on chain whatever paid the order (the
//     excess came as transfers to the deposit address): a request without a hash is ErrState.
//   - It leaves the status as it is (paid, reconciled, refund_requested, refunded): the order is
//     not being refunded, and an order refunded in whole may still owe its excess.
//   - A receipt without a payment has only funds (RefundableCents, every unit its transfers
//     brought, not capped at the total: a failed receipt paid twice after its late watch gives
//     back both); its refunds are shown up to the total as refundedUsd, the rest as the excess.
//     The excess flag there changes only the default amount (ExcessCents).

// ErrExcessNeedsHash: a refund of the excess is a claim the chain proves (an ErrState).
var ErrExcessNeedsHash = fmt.Errorf("%w: a refund of the excess is recorded with its transactionHash, proven on chain", ErrState)

// excessState is what refunds of the excess hold of RefundedCents and RequestedCents (the
// refundState part, as FundsRefundedCents is the funds').
type excessState struct {
	ExcessRefundedCents  money.Cents `json:"excessRefundedCents,omitempty"`
	ExcessRequestedCents money.Cents `json:"excessRequestedCents,omitempty"`
}

// requestExcessRefund decides a refund of a paid receipt's excess. Errors: ErrState,
// ErrExcessNeedsHash, ErrRefundHashUsed, CheckClaim's, ErrAmount.
func requestExcessRefund(s State, o RefundOrder) ([]Event, error) {
	switch s.Status {
	case StatusPaid, StatusReconciled, StatusRefundRequested, StatusRefunded:
	default:
		return nil, fmt.Errorf("%w: only a paid receipt's excess can be refunded, this one is %s", ErrState, s.Status)
	}
	if o.TransactionHash == "" {
		return nil, ErrExcessNeedsHash
	}
	if _, ok := s.CountedRefund(o.TransactionHash); ok {
		return nil, ErrRefundHashUsed
	}
	if err := s.CheckClaim(o); err != nil {
		return nil, err
	}
	remaining := s.ExcessUnrefundedCents()
	if remaining == 0 {
		return nil, fmt.Errorf("%w: nothing the receipt received beyond its total is left to refund", ErrAmount)
	}
	if o.AmountCents = amountWithin(o.AmountCents, int64(remaining)); o.AmountCents == 0 {
		return nil, fmt.Errorf("%w: the refund of the excess must be between 0.01 and the unrefunded excess %d cents", ErrAmount, remaining)
	}
	return []Event{RefundRequested{AmountCents: o.AmountCents, Reason: o.Reason, RequestedBy: o.By, TransactionHash: o.TransactionHash,
		RefundTo: o.RefundTo, OfExcess: true, At: o.At}}, nil
}

// ExcessUnrefundedCents is what of a paid receipt's excess can still be refunded: ExcessCents
// less the excess refunds processed or claimed (0 without a payment: its refunds are of funds).
func (s State) ExcessUnrefundedCents() int64 {
	if s.Payment == nil {
		return 0
	}
	return max(0, s.ExcessCents()-int64(s.ExcessRefundedCents+s.ExcessRequestedCents))
}

// excessMoved adds to the excess's part of RefundedCents and RequestedCents what a refund of the
// excess (r.OfExcess) moved there; a record of another refund changes nothing.
func (s *State) excessMoved(r RefundRecord, refunded, requested int64) {
	if !r.OfExcess {
		return
	}
	s.ExcessRefundedCents = max(0, s.ExcessRefundedCents+money.Cents(refunded))
	s.ExcessRequestedCents = max(0, s.ExcessRequestedCents+money.Cents(requested))
}

// apartMoved moves the funds' and the excess's parts for a refund record (neither for the order's).
func (s *State) apartMoved(r RefundRecord, refunded, requested int64) {
	s.fundsMoved(r, refunded, requested)
	s.excessMoved(r, refunded, requested)
}

// RefundedExcessCents is what refundedExcessUsd shows: a paid receipt's processed refunds of its
// excess; a receipt without a payment, its funds' refunds beyond the total (OrderRefundedCents
// shows them up to it). With OrderRefundedCents and RefundedBeforePaymentCents it makes
// RefundedCents.
func (s State) RefundedExcessCents() money.Cents {
	if s.Payment == nil {
		return s.RefundedCents - s.OrderRefundedCents()
	}
	return min(s.ExcessRefundedCents, s.RefundedCents-s.RefundedBeforePaymentCents())
}

// defaultFundsAmount is the amount of a refund of a receipt without a payment that names none:
// what is left to refund, or of it the excess when the refund says it returns the excess.
func (s State) defaultFundsAmount(o RefundOrder, remaining int64) int64 {
	if o.Excess {
		return min(s.ExcessCents(), remaining)
	}
	return remaining
}

// amountWithin is a refund's amount against what is left to refund: all of it when none was asked,
// the asked amount when it is 1 to remaining cents, else 0 (refused).
func amountWithin(asked, remaining int64) int64 {
	if asked == 0 {
		return remaining
	}
	if asked < 0 || asked > remaining {
		return 0
	}
	return asked
}
