package readmodels

import "github.com/payledger/payledger/domain/receipt"

// ProcessorPaymentsToRefundOf is the number of st's own card or bank sessions (its onramp
// attempts) whose success the processor completed and the receipt recorded as paying nothing
// (PaymentIgnored, which ends the attempt: receipt.State.EndedAttempts): a second payment of a
// paid receipt ("duplicate payment ... to be refunded"), a success below what was due, one after
// the payment window. The processor collected that money for the merchant and the receipt does
// not count it, so the merchant owes it back; the amounts and reasons are in the receipt's
// history. Before stop 69 only the history said so: the status read, the receipt read, the
// webhook payload and the export showed a card paid twice as paid once.
//
// Only the receipt's own attempts count: a success the receipt ignored because the service had
// started its session for another receipt is that receipt's payment, and an attempt the receipt
// never opened (a session it first heard of after it was paid) cannot be told from it in the
// state, which keeps the ignored payment's key and attempt but not whose session it was or its
// amount. The attempt that paid the receipt never counts.
//
// Stop 71: a payment the merchant refunded whole (a refund with processorPayment: true, of its
// amount, or the oldest first: receipt.State.ProcessorPaymentsToRefund) no longer counts; before,
// the count never went down.
func ProcessorPaymentsToRefundOf(st receipt.State) int { return st.ProcessorPaymentsToRefund() }
