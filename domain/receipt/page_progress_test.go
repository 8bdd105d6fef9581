package receipt

import (
	"strings"
	"testing"
)

// TestPaymentInProgress: the payment page hides its controls while a payment is being confirmed
// (PaymentInProgress), and shows them on a pending receipt whose current attempt ended short (an
// accepted ACH payment completed with less than is due: reopened) with no transfer confirming.
// A new session, a wallet payment or a transfer seen on the reopened receipt is in progress again.
func TestPaymentInProgress(t *testing.T) {
	t.Parallel()
	onramp := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", At: 2})
	processing := withEvents(t, onramp, PaymentSubmitted{AttemptID: "a", Source: "processor", At: 3})
	accepted := withEvents(t, onramp, ACHAccepted{AttemptID: "a", At: 5})
	reopened := withEvents(t, accepted, PaymentIgnored{AttemptID: "a", VerifiedBy: verifiedByProcessor, TransactionHash: "0x" + strings.Repeat("1", 64),
		Token: "USD", AmountUnits: "600", Why: "underpaid", StatusAtArrival: StatusACHPending, Reopened: true, At: 6})
	wallet := withEvents(t, windowed(), AttemptStarted{AttemptID: "w", Kind: "wallet", At: 2})
	seen := usdc("0x2", "6000000")
	confirmed := DepositTransferConfirmed{TransactionHash: "0x2", BlockNumber: 5, BlockHash: "0xb2", At: 8}
	dropped := DepositTransferDropped{TransactionHash: "0x2", BlockHash: "0xb2", At: 8}
	cases := []struct {
		name string
		s    State
		want bool
	}{
		{"generated", windowed(), false},
		{"a card session open on a generated receipt", onramp, false},
		{"a card payment processing", processing, true},
		{"a bank payment accepted (ach_pending)", accepted, true},
		{"a card payment processing, completed short", withEvents(t, processing, PaymentIgnored{AttemptID: "a", VerifiedBy: verifiedByProcessor,
			TransactionHash: "0x" + strings.Repeat("4", 64), Token: "USD", AmountUnits: "500", Why: "underpaid", StatusAtArrival: StatusPending, At: 6}), false},
		{"reopened by the short ACH completion", reopened, false},
		{"reopened, then a new card session", withEvents(t, reopened, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_2", At: 7}), true},
		{"reopened, then a wallet payment submitted", withEvents(t, reopened, AttemptStarted{AttemptID: "w", Kind: "wallet", At: 7},
			PaymentSubmitted{AttemptID: "w", Source: "wallet", TransactionHash: "0x3", At: 8}), true},
		{"reopened, then a transfer seen", withEvents(t, reopened, seen), true},
		{"reopened, then the transfer confirmed (short)", withEvents(t, reopened, seen, confirmed), false},
		{"reopened, then the transfer dropped", withEvents(t, reopened, seen, dropped), false},
		{"a wallet payment submitted", withEvents(t, wallet, PaymentSubmitted{AttemptID: "w", Source: "wallet", TransactionHash: "0x3", At: 3}), true},
		{"a transfer seen at the deposit", withEvents(t, windowed(), seen), true},
		{"paid", withEvents(t, processing, PaymentConfirmed{AttemptID: "a", VerifiedBy: verifiedByProcessor, Token: "USD", At: 9}), false},
		{"failed", withEvents(t, processing, fail("a")), false},
	}
	for _, tc := range cases {
		if got := tc.s.PaymentInProgress(); got != tc.want {
			t.Errorf("%s (status %s, current %q, ended %v): PaymentInProgress %v, want %v", tc.name, tc.s.Status, tc.s.CurrentAttempt, tc.s.EndedAttempts, got, tc.want)
		}
	}
}
