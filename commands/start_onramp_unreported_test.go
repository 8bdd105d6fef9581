package commands_test

import (
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// The processor's report of a payment under way may come late or be lost: the receipt is then
// still generated (or failed by an earlier decline) while the processor completes the payment of
// its current session. The check for a payment under way asked the processor only about a
// pending receipt, so the customer back on the page (which reads "Awaiting payment" and offers
// the card) started a second session and was charged twice. Any receipt whose current onramp
// session is open is now asked about.
func TestStartOnrampRefusedWhileAnUnreportedPaymentCompletes(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	begin, refused := onrampStarter(t, e, f)

	// Generated: the processor took the payment (processing, then completed), no report arrived.
	for _, status := range []string{"fulfillment_processing", "ach_pending", "fulfillment_complete"} {
		id := e.receipt(payMerchant, "USD", 2000)
		first := begin(id)
		f.set(first.SessionID, func(s *commands.OnrampSession) { s.Status = status })
		if st := e.state(id); st.Status != receipt.StatusGenerated {
			t.Fatalf("%s: status %s, want generated", status, st.Status)
		}
		refused(id)
	}

	// Failed by a declined card, retried: the retry's payment is under way, unreported.
	declined := e.receipt(payMerchant, "USD", 2100)
	first := begin(declined)
	u := receipt.ProcessorUpdate{SessionID: first.SessionID, AttemptID: first.AttemptID, Status: "rejected", SessionOwner: declined, At: 3}
	if _, _, err := commands.ChangeReceipt(e.ctx, e.store, declined, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.DecideProcessorUpdate(st, u)
	}); err != nil {
		t.Fatal(err)
	}
	f.set(first.SessionID, func(s *commands.OnrampSession) { s.Status = "rejected" })
	retry := begin(declined)
	f.set(retry.SessionID, func(s *commands.OnrampSession) { s.Status = "fulfillment_processing" })
	if st := e.state(declined); st.Status != receipt.StatusFailed || !st.OnrampOpen() {
		t.Fatalf("the retried receipt: %s, onramp open %v", st.Status, st.OnrampOpen())
	}
	refused(declined)

	// A checkout the customer left on a generated receipt may still be started again.
	left := e.receipt(payMerchant, "USD", 2200)
	one := begin(left)
	if two := begin(left); two.SessionID == one.SessionID {
		t.Fatalf("the retry of a left checkout reused session %s", one.SessionID)
	}
}
