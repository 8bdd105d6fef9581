package receipt

import (
	"strings"
	"testing"
)

// A success without an amount of a session the service started brings what the session was asked
// for (AttemptStarted.AskedUSDCents). The 12.31 USD receipt received 10.00 USDC confirmed, so a
// card session was asked for the rest, 2.31. If the 10.00 is taken back before the card payment
// completes (its block left the chain), 12.31 is due again: the hashless, amountless success then
// paid the receipt with 2.31 collected. It is now recorded as underpaid. An attempt whose asked
// amount is not recorded (started before stop 68) pays as it did.
func TestAmountlessSuccessIsJudgedByTheAskedAmount(t *testing.T) {
	t.Parallel()
	under := credited(depositReceipt(), "0x1", "USDC", "10000000", 6, true)
	rest := withEvents(t, under, AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", AskedUSDCents: 231, At: 2})
	taken := withEvents(t, rest, DepositTransferDropped{TransactionHash: "0x1", BlockHash: "0xb1", At: 3})
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
		{"the chain part taken back: underpaid", taken, ProcessorUpdate{Asked: asked}, StatusPending, EventPaymentIgnored},
		{"asked amount not recorded: paid as before", taken, ProcessorUpdate{}, StatusPaid, EventConfirmed},
		{"asked amount of another attempt only: paid as before", taken, ProcessorUpdate{Asked: map[string]int64{"b": 231}}, StatusPaid, EventConfirmed},
		{"due lowered since the start: paid", lowered, ProcessorUpdate{Asked: map[string]int64{"a": 1231}}, StatusPaid, EventConfirmed},
		{"not the service's session: not verified yet", taken, ProcessorUpdate{Asked: asked, SessionOwner: "-"}, StatusPending, ""},
		{"with an amount: judged by it, as before", taken, ProcessorUpdate{Asked: asked, SourceAmountCents: &cents}, StatusPending, EventPaymentIgnored},
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
