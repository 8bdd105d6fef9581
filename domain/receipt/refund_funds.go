package receipt

import "github.com/payledger/payledger/domain/money"

// Refunds of funds returned before the payment (stop 69). A failed receipt's funds that paid
// nothing may be refunded (a claim while it has no payment: RefundRecord.OfFunds); a late
// payment may then pay the receipt with what the customer kept (returnedCents). Every unit the
// customer sent can be given back once and never more:
//   - the funds' refunds return what the receipt received before its payment, at most that
//     (RefundableCents of a failed receipt);
//   - the order's refunds return the payment, at most the order's total: the funds' refunds do
//     not count against it (before, a customer who sent 4, got them back and paid the 10 late
//     could be refunded only 6 more through the ledger);
//   - RefundedCents and RequestedCents keep counting every refund (the events' sums, as the
//     read model stores them); FundsRefundedCents and FundsRequestedCents are the funds' part.
// The auditors' invariant holds for what refundedUsd shows (OrderRefundedCents): at most the
// total, the funds' refunds shown apart once the receipt is paid (RefundedBeforePaymentCents).

// fundsMoved adds to the funds' part of RefundedCents and RequestedCents what a refund of funds
// (r.OfFunds, a USD refund) moved there; a record of another refund changes nothing. A part
// never falls below zero (a state folded before stop 69 has none yet).
func (s *State) fundsMoved(r RefundRecord, refunded, requested int64) {
	if !r.OfFunds || r.Unknown != nil {
		return
	}
	s.FundsRefundedCents = max(0, s.FundsRefundedCents+money.Cents(refunded))
	s.FundsRequestedCents = max(0, s.FundsRequestedCents+money.Cents(requested))
}

// orderRefunded is what the order's processed refunds brought back: the refunds less those of
// funds returned before the payment and those of the excess (stop 70).
func (s State) orderRefunded() money.Cents {
	return max(0, s.RefundedCents-s.FundsRefundedCents-s.ExcessRefundedCents)
}

// orderRequested is what the order's refunds ask for and the chain has not shown yet: requests
// and claims, less claims of funds returned before the payment and of the excess.
func (s State) orderRequested() money.Cents {
	return max(0, s.RequestedCents-s.FundsRequestedCents-s.ExcessRequestedCents)
}

// OrderUnrefunded is what of the order's total can still be refunded: the total less the
// order's refunds, processed or requested. Funds refunded before a late payment paid the
// receipt are not among them (stop 69).
func (s State) OrderUnrefunded() int64 {
	return int64(s.Receipt.Total - s.orderRefunded() - s.orderRequested())
}

// OrderRefundedCents is what refundedUsd shows, never more than the total: a paid receipt's
// refunds of its order (the funds it returned before the payment are RefundedBeforePaymentCents,
// its excess's refunds RefundedExcessCents); a receipt without a payment has only refunds of the
// funds it received, shown up to the total (stop 70: the funds beyond it, a failed receipt paid
// twice, are refundable too, and shown as RefundedExcessCents).
func (s State) OrderRefundedCents() money.Cents {
	if s.Payment == nil {
		return min(s.RefundedCents, s.Receipt.Total)
	}
	return s.orderRefunded()
}

// OrderRequestedCents is what requestedRefundUsd shows, as OrderRefundedCents for requests and
// claims: a paid receipt's of its order, a receipt's without a payment of its funds.
func (s State) OrderRequestedCents() money.Cents {
	if s.Payment == nil { // up to the total, as OrderRefundedCents
		return max(0, min(s.RequestedCents, s.Receipt.Total-s.OrderRefundedCents()))
	}
	return s.orderRequested()
}

// RefundedBeforePaymentCents is what a paid receipt's processed refunds of funds returned
// before its payment brought back (0 without a payment: those are then its refunds,
// OrderRefundedCents). With OrderRefundedCents it makes RefundedCents.
func (s State) RefundedBeforePaymentCents() money.Cents {
	if s.Payment == nil {
		return 0
	}
	return min(s.FundsRefundedCents, s.RefundedCents)
}
