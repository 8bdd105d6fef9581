package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// checkout_success is a public report (anyone with the page's link may post it, 20 an hour per
// receipt) that makes the service ask the processor about the receipt's current onramp session
// and apply its answer. A session the processor reports failed (the card checkout the customer
// left, expired by the processor) on a receipt that is no longer generated or pending (paid by
// its deposit, or failed by the end of its window) was decided on every report, and each time
// appended a PaymentFailureIgnored to the receipt's own stream: any stranger could grow the
// history every command replays by 20 events an hour, for good. Such a failure changes nothing
// and is recorded once by the processor's signed event; the verifier now leaves it alone.
func TestCheckoutSuccessOfADecidedReceiptAppendsNothing(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	start := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now)
	verify := commands.NewReconcileOnrampHandler(e.store, f, noOpenAttempts{}, e.now)
	telemetry := commands.NewRecordTelemetryHandler(e.store, verify, e.now)
	abandoned := func(id string) commands.OnrampStarted {
		t.Helper()
		out, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: id})
		if err != nil {
			t.Fatal(err)
		}
		f.set(out.SessionID, func(s *commands.OnrampSession) { s.Status, s.ErrorCode = "expired", "session_expired" })
		return out
	}
	change := func(id string, decide func(receipt.State) ([]receipt.Event, error)) {
		t.Helper()
		if _, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, decide); err != nil {
			t.Fatal(err)
		}
	}

	// Paid by its deposit after the customer left a card checkout.
	paid := e.depositReceipt(1000, depositOf(21))
	abandoned(paid)
	change(paid, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: receipt.DepositTransferSeen{TransactionHash: "0x" + strings.Repeat("c1", 32),
			BlockNumber: 5, BlockHash: "0xb1", Sender: "0xb", Token: "USDC", AmountUnits: "10000000", Decimals: 6}, Confirmed: true, At: 2})
	})
	if st := e.state(paid); st.Status != receipt.StatusPaid {
		t.Fatalf("status %s, want paid", st.Status)
	}

	// Failed by its session (the verifier applies that once), then by the end of its window.
	expired := e.depositReceipt(1000, depositOf(22))
	abandoned(expired)
	if changed, _, err := verify.Verify(e.ctx, expired); err != nil || !changed {
		t.Fatalf("the session's failure was not applied: %v %v", changed, err)
	}
	change(expired, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Expire(st, e.at.Add(2*time.Hour).UnixMilli(), time.Hour)
	})
	if st := e.state(expired); st.Status != receipt.StatusFailed || !st.Expired() {
		t.Fatalf("status %s (expired %v), want failed by its window", st.Status, st.Expired())
	}

	for _, id := range []string{paid, expired} {
		before := e.history(id)
		for range 3 {
			if _, err := telemetry.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: "checkout_success"}); err != nil {
				t.Fatalf("checkout_success: %v", err)
			}
		}
		if after := e.history(id); after != before {
			t.Fatalf("three checkout_success reports grew the receipt's history\nfrom %s\nto   %s", before, after)
		}
	}
}
