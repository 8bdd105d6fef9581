package commands_test

import (
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// A customer leaves a card checkout, starts another, and then pays the first one in the tab still
// open on it. The processor's processing report of that session records nothing (it is not the
// receipt's current attempt), so the page still reads "Awaiting payment"; the check for a payment
// under way asked the processor about the current session only, which was still "created", and
// a further start opened a third session: the customer could be charged twice. Every session of
// the receipt the processor may still be completing is now asked about (the newest few).
func TestStartOnrampRefusedWhileAnEarlierSessionsPaymentCompletes(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	begin, refused := onrampStarter(t, e, f)
	for _, status := range []string{"fulfillment_processing", "ach_pending", "fulfillment_complete"} {
		id := e.receipt(payMerchant, "USD", 2000)
		left := begin(id)
		begin(id) // the second checkout, still "created" at the processor
		f.set(left.SessionID, func(s *commands.OnrampSession) { s.Status = status })
		if st := e.state(id); st.Status != receipt.StatusGenerated {
			t.Fatalf("%s: status %s, want generated", status, st.Status)
		}
		refused(id)
	}
	// Both checkouts left or declined: a new start goes on.
	id := e.receipt(payMerchant, "USD", 2100)
	first := begin(id)
	begin(id)
	f.set(first.SessionID, func(s *commands.OnrampSession) { s.Status = "expired" })
	begin(id)
}
