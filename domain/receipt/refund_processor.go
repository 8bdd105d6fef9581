package receipt

import (
	"fmt"

	"github.com/payledger/payledger/domain/money"
)

// Refunds of processor payments (stop 71). A card or bank payment the processor completed and
// the receipt does not count (a second payment, a short or late one: processor_refund.go) is
// money the merchant owes back, and it is not the order's:
//   - A refund of processor payments (RefundOrder.Processor) returns them apart from the order:
//     at most ProcessorUnrefundedCents (their known amounts less such refunds), never counted
//     against the order's total, refundedUsd or the excess. Before, the only refund the ledger
//     took was the order's: returning a second card payment of 10.00 took the order's 10.00 and
//     read as the order refunded, and processorPaymentsToRefund never went down.
//   - The merchant says so (processorPayment: true), as it says excess: nothing else tells a
//     refund of part of the order from one of a payment the receipt does not count.
//   - It is recorded with its transaction hash on the merchant's word (RefundProcessed, proof
//     merchant, OfProcessor): the processor collected that money, so no transfer to the deposit
//     address shows it and the chain cannot prove its return. Without a hash: ErrProcessorRefundNeedsHash.
//   - It changes no status, in any status that owes such a payment (a short ACH completion leaves
//     the receipt pending, a late one failed); RefundedCents and RequestedCents (the order's,
//     the funds' and the excess's) leave it out, ProcessorRefundedCents holds it.
//   - Which payments it returns is decided from the amounts (processorPaymentsOwed): each refund
//     returns the payment whose unrefunded amount it equals, else the oldest ones first. A payment
//     whose amount the processor did not report is not refundable apart (no bound) and stays counted.

// ErrProcessorRefundNeedsHash: a refund of processor payments is recorded with its transaction
// hash (an ErrState).
var ErrProcessorRefundNeedsHash = fmt.Errorf("%w: a refund of a processor payment is recorded with its transactionHash", ErrState)

// processorRefundState is what refunds of processor payments returned (refundState's part).
type processorRefundState struct {
	ProcessorRefundedCents money.Cents `json:"processorRefundedCents,omitempty"`
}

// requestProcessorRefund decides a refund of the receipt's processor payments. Errors:
// ErrProcessorRefundNeedsHash, ErrRefundHashUsed, CheckClaim's, ErrAmount.
func requestProcessorRefund(s State, o RefundOrder) ([]Event, error) {
	if o.TransactionHash == "" {
		return nil, ErrProcessorRefundNeedsHash
	}
	if _, ok := s.CountedRefund(o.TransactionHash); ok {
		return nil, ErrRefundHashUsed
	}
	if err := s.CheckClaim(o); err != nil {
		return nil, err
	}
	remaining := int64(s.ProcessorUnrefundedCents())
	if remaining == 0 {
		return nil, fmt.Errorf("%w: no processor payment of a known amount is left to refund", ErrAmount)
	}
	if o.AmountCents = amountWithin(o.AmountCents, remaining); o.AmountCents == 0 {
		return nil, fmt.Errorf("%w: the refund of processor payments must be between 0.01 and their unrefunded %d cents", ErrAmount, remaining)
	}
	return []Event{RefundProcessed{AmountCents: o.AmountCents, Reason: o.Reason, TransactionHash: o.TransactionHash, ProcessedBy: o.By,
		Proof: ProofMerchant, Recipient: o.RefundTo, OfProcessor: true, At: o.At}}, nil
}

// processorRefunded applies a processed refund of processor payments (refundProcessed's case).
func (s *State) processorRefunded(e RefundProcessed) {
	s.ProcessorRefundedCents += money.Cents(e.AmountCents)
	if e.TransactionHash != "" {
		s.RefundTxHashes = append(append([]string(nil), s.RefundTxHashes...), e.TransactionHash)
	}
	s.withRefund(-1, RefundRecord{AmountCents: e.AmountCents, Reason: e.Reason, TransactionHash: e.TransactionHash, State: RefundStateProcessed,
		Proof: ProofMerchant, Recipient: e.Recipient, OfProcessor: true, At: e.At})
	s.UpdatedAt = e.At
}

// ProcessorUnrefundedCents is what of the processor payments the receipt owes back, of known
// amount, is not refunded yet: what a refund of them may return.
func (s State) ProcessorUnrefundedCents() money.Cents {
	cents, _, _ := s.processorPaymentsOwed()
	return cents
}

// ProcessorPaymentsToRefund is how many processor payments the receipt owes back and did not
// refund whole: processorPaymentsToRefund.
func (s State) ProcessorPaymentsToRefund() int {
	_, count, _ := s.processorPaymentsOwed()
	return count
}

// processorPaymentsOwed is what the processor payments the receipt does not count still owe
// after its refunds of them: the unrefunded cents of those of known amount, how many are not
// refunded whole (those of unknown amount included), and how many have no known amount. Each
// refund returns the payment whose unrefunded amount it equals, else the oldest first.
func (s State) processorPaymentsOwed() (cents money.Cents, count, unknown int) {
	owed := s.processorIgnoredOwed()
	left := make([]money.Cents, len(owed))
	for i, p := range owed {
		left[i] = p.Cents
	}
	for _, r := range s.Refunds {
		if r.OfProcessor && r.State == RefundStateProcessed {
			returnProcessorPayment(owed, left, money.Cents(r.AmountCents))
		}
	}
	for i, p := range owed {
		switch {
		case !p.AmountKnown:
			unknown++
			count++
		case left[i] > 0 || p.Cents == 0:
			cents += left[i]
			count++
		}
	}
	return cents, count, unknown
}

// returnProcessorPayment takes amount off left (the unrefunded amounts of owed): off the payment
// whose unrefunded amount it equals, else off the oldest first.
func returnProcessorPayment(owed []ProcessorIgnoredPayment, left []money.Cents, amount money.Cents) {
	for i, p := range owed {
		if p.AmountKnown && left[i] > 0 && left[i] == amount {
			left[i] = 0
			return
		}
	}
	for i, p := range owed {
		if amount == 0 {
			return
		}
		if p.AmountKnown {
			take := min(left[i], amount)
			left[i], amount = left[i]-take, amount-take
		}
	}
}
