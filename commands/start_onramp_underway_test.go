package commands_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// A card or bank payment the processor has taken and is completing (its session
// fulfillment_processing or ach_pending) pays the receipt once it completes. A second session
// started meanwhile charged the customer again: nothing stopped it for a receipt that was
// underpaid on chain, whose page keeps "Pay the rest by card or bank" because the processor's
// processing report records nothing on a receipt already pending, nor through the public route
// for any receipt. The second session also became the current attempt, so a failure of the first
// was then ignored and the receipt read "pending" over a payment that had failed. A start is now
// refused while the current session's payment is under way; an abandoned checkout (the session
// still created) or a processor that cannot be asked leaves the retry open.
func TestStartOnrampRefusedWhileTheProcessorCompletesAPayment(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	begin, refused := onrampStarter(t, e, f)

	// Underpaid on chain (pending), the rest by card: the processor is completing it.
	underpaid := e.depositReceipt(1231, depositOf(31))
	if _, _, err := commands.ChangeReceipt(e.ctx, e.store, underpaid, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: receipt.DepositTransferSeen{TransactionHash: "0x" + strings.Repeat("d1", 32),
			BlockNumber: 5, BlockHash: "0xb1", Sender: "0xb", Token: "USDC", AmountUnits: "10000000", Decimals: 6}, Confirmed: true, At: 2})
	}); err != nil {
		t.Fatal(err)
	}
	rest := begin(underpaid)
	f.set(rest.SessionID, func(s *commands.OnrampSession) { s.Status = "fulfillment_processing" })

	// A whole payment by bank the processor accepted and reported (pending).
	processing := e.receipt(payMerchant, "USD", 2000)
	whole := begin(processing)
	f.set(whole.SessionID, func(s *commands.OnrampSession) { s.Status = "ach_pending" })
	u := receipt.ProcessorUpdate{SessionID: whole.SessionID, AttemptID: whole.AttemptID, Status: "fulfillment_processing", SessionOwner: processing, At: 3}
	if _, _, err := commands.ChangeReceipt(e.ctx, e.store, processing, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.DecideProcessorUpdate(st, u)
	}); err != nil {
		t.Fatal(err)
	}

	for _, id := range []string{underpaid, processing} {
		if st := e.state(id); st.Status != receipt.StatusPending {
			t.Fatalf("%s: status %s, want pending", id, st.Status)
		}
		refused(id)
	}

	// A checkout the customer left (the session still created) may be started again, and so may
	// one the processor cannot be asked about (its session API decides when asked to create).
	f.set(rest.SessionID, func(s *commands.OnrampSession) { s.Status = "created" })
	again := begin(underpaid)
	if again.SessionID == rest.SessionID || e.state(underpaid).CurrentAttempt != again.AttemptID {
		t.Fatalf("the retry of a left checkout: %+v then %+v", rest, again)
	}
	f.set(again.SessionID, func(s *commands.OnrampSession) { s.Status = "fulfillment_processing" })
	f.getErr = errors.New("processor down")
	begin(underpaid)
}

// onrampStarter starts card sessions with a StartOnramp handler over f: begin starts one (the
// test fails on an error); refused checks that a start is refused while the processor completes
// the current session's payment, asking for no session and appending nothing.
func onrampStarter(t *testing.T, e *payEnv, f *fakeProcessor) (begin func(id string) commands.OnrampStarted, refused func(id string)) {
	start := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now)
	begin = func(id string) commands.OnrampStarted {
		t.Helper()
		out, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: id})
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		return out
	}
	refused = func(id string) {
		t.Helper()
		before, sessions := e.history(id), f.creates()
		_, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: id})
		if !errors.Is(err, receipt.ErrState) || !strings.Contains(err.Error(), "being completed by the processor") {
			t.Fatalf("a second card payment while the first is completed: error %v, want receipt.ErrState", err)
		}
		if f.creates() != sessions || e.history(id) != before {
			t.Fatalf("the refused start asked for a session (%d, was %d) or appended events: %s", f.creates(), sessions, e.history(id))
		}
	}
	return begin, refused
}
