package receipt

import (
	"strings"
	"testing"
)

// A success without an amount of a session the service started brings what the session was asked
// for (AttemptStarted.AskedUSDCents). The 12.31 USD receipt received 10.00 USDC confirmed, so its
// card sessions were asked for the rest, 2.31. The first was declined (the receipt failed, its
// window still open) and the customer started a second. If the 10.00 goes back to the customer
// before that payment completes (the merchant's refund of the failed receipt's funds), 12.31 is
// due again: the amountless success then paid the receipt with 2.31 collected. It is now recorded
// as underpaid. An attempt whose asked amount is not recorded (started before stop 68) pays as it
// did.
func TestAmountlessSuccessIsJudgedByTheAskedAmount(t *testing.T) {
	t.Parallel()
	under := credited(depositReceipt(), "0x1", "USDC", "10000000", 6, true)
	declined := withEvents(t, under, AttemptStarted{AttemptID: "x", Kind: "onramp", SessionID: "cos_0", OpenedBy: "service", AskedUSDCents: 231, At: 2})
	evs, err := DecideProcessorUpdate(declined, ProcessorUpdate{SessionID: "cos_0", AttemptID: "x", Status: "rejected", SessionOwner: "r", At: 3})
	declined = apply(t, declined, evs, err)
	rest := withEvents(t, declined, AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", AskedUSDCents: 231, At: 4})
	evs, err = RequestRefund(rest, RefundOrder{AmountCents: 1000, Reason: "declined", TransactionHash: "0xf1", By: "merchant", At: 5})
	taken := apply(t, rest, evs, err)
	if due, _ := OnrampDue(taken); taken.Status != StatusFailed || due != 1231 {
		t.Fatalf("after the refund: %s, %s due; want failed, 12.31", taken.Status, due)
	}
	whole := withEvents(t, depositReceipt(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", AskedUSDCents: 1231, At: 2})
	lowered := credited(whole, "0x1", "USDC", "10000000", 6, true)
	asked := map[string]int64{"a": 231}
	cents := int64(231)
	for _, c := range []struct {
		name   string
		state  State
		u      ProcessorUpdate
		status Status
		types  string
	}{
		{"the rest still due: paid", rest, ProcessorUpdate{Asked: asked}, StatusPaid, EventConfirmed},
		{"the chain part given back: underpaid", taken, ProcessorUpdate{Asked: asked}, StatusFailed, EventPaymentIgnored},
		{"asked amount not recorded: paid as before", taken, ProcessorUpdate{}, StatusPaid, EventConfirmed},
		{"asked amount of another attempt only: paid as before", taken, ProcessorUpdate{Asked: map[string]int64{"b": 231}}, StatusPaid, EventConfirmed},
		{"due lowered since the start: paid", lowered, ProcessorUpdate{Asked: map[string]int64{"a": 1231}}, StatusPaid, EventConfirmed},
		{"not the service's session: not verified yet", taken, ProcessorUpdate{Asked: asked, SessionOwner: "-"}, StatusFailed, ""},
		{"with an amount: judged by it, as before", taken, ProcessorUpdate{Asked: asked, SourceAmountCents: &cents}, StatusFailed, EventPaymentIgnored},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := c.u
			u.SessionID, u.AttemptID, u.Status, u.At = "cos_1", "a", "fulfillment_complete", 9
			if u.SessionOwner == "-" {
				u.SessionOwner = ""
			} else {
				u.SessionOwner = "r"
			}
			evs, err := DecideProcessorUpdate(c.state, u)
			s := apply(t, c.state, evs, err)
			if s.Status != c.status || types(evs) != c.types {
				t.Fatalf("%s (%s), want %s (%s)", s.Status, types(evs), c.status, c.types)
			}
			if c.types == EventPaymentIgnored && u.SourceAmountCents == nil {
				why := evs[0].(PaymentIgnored).Why
				if !strings.Contains(why, "asked for 2.31 USD and 12.31 USD is due now") {
					t.Fatalf("why = %q", why)
				}
				// Reported again, with its hash: recorded once.
				u.TransactionHash = "0xab"
				if again, err := DecideProcessorUpdate(s, u); err != nil || len(again) > 0 {
					t.Fatalf("again: %s, %v; want nothing", types(again), err)
				}
			}
		})
	}
}
