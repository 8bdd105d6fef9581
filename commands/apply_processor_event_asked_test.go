package commands_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// A 12.31 USD receipt received 10.00 USDC, confirmed, so its card sessions were asked for the
// rest, 2.31 (recorded on the attempt: askedUsdCents). The first was declined (the receipt failed,
// its window still open), the customer started a second, and the merchant refunded the 10.00 of
// the failed receipt: 12.31 is due again. The processor's success of the second without an amount
// (by signed event, or by its session's Get in the reconciliation) paid the receipt with 2.31
// collected. It is now recorded as underpaid, and the receipt stays failed.
func TestAmountlessSuccessPaysNoMoreThanTheSessionWasAskedFor(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	ctx, e := rc.ctx, rc.pay
	events := commands.NewApplyProcessorEventHandler(rc.store, readmodels.NewProcessorEvents(rc.pool), rc.clk.now)
	verify := commands.NewReconcileOnrampHandler(rc.store, rc.proc, readmodels.NewReceipts(rc.pool), rc.clk.now)
	for n, by := range []string{"signed event", "reconciliation"} {
		t.Run(by, func(t *testing.T) {
			id := e.depositReceipt(1231, depositOf(40+n))
			tx := fmt.Sprintf("0x%064x", 0xa1+n)
			change := func(decide func(receipt.State) ([]receipt.Event, error)) {
				t.Helper()
				if _, _, err := commands.ChangeReceipt(ctx, rc.store, id, eventstore.Metadata{}, decide); err != nil {
					t.Fatal(err)
				}
			}
			change(func(st receipt.State) ([]receipt.Event, error) {
				return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: receipt.DepositTransferSeen{TransactionHash: tx,
					BlockNumber: 5, BlockHash: "0xb1", Sender: "0xb", Token: "USDC", AmountUnits: "10000000", Decimals: 6}, Confirmed: true, At: 2})
			})
			declined := startAsked(t, rc, id)
			if _, err := events.Handle(ctx, commands.ApplyProcessorEvent{EventID: "evt_x" + id, SessionID: declined.SessionID, ReceiptID: id,
				AttemptID: declined.AttemptID, Status: "rejected", ErrorCode: "card_declined", Body: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			out := startAsked(t, rc, id)
			change(func(st receipt.State) ([]receipt.Event, error) {
				return receipt.RequestRefund(st, receipt.RefundOrder{AmountCents: 1000, Reason: "declined", TransactionHash: fmt.Sprintf("0x%064x", 0xf1+n),
					By: "merchant", At: rc.clk.now().UnixMilli()})
			})
			if st := e.state(id); st.Status != receipt.StatusFailed {
				t.Fatalf("after the decline and the refund: %s, %s", st.Status, e.history(id))
			}
			if due, _ := receipt.OnrampDue(e.state(id)); due != 1231 {
				t.Fatalf("due after the refund: %s, want 12.31", due)
			}
			complete(t, rc, events, verify, by, id, out)
			st := e.state(id)
			evs, _ := commands.ReadReceiptEvents(ctx, rc.store, id)
			if st.Status != receipt.StatusFailed || !strings.HasSuffix(e.history(id), ",PaymentIgnored") ||
				!strings.Contains(string(evs[len(evs)-1].Data), "was asked for 2.31 USD and 12.31 USD is due now") {
				t.Fatalf("%s, %s: want failed, the success ignored as underpaid", st.Status, e.history(id))
			}
		})
	}
}

// startAsked starts a card payment of receipt id, which asks for 2.31 and records it.
func startAsked(t *testing.T, rc reconcileEnv, id string) commands.OnrampStarted {
	t.Helper()
	out, err := rc.start.Handle(rc.ctx, commands.StartOnramp{ReceiptID: id})
	if err != nil || out.AmountUSD != 231 {
		t.Fatalf("start: %+v %v, want 2.31 asked", out, err)
	}
	if err := rc.runner.WaitFor(rc.ctx, out.Result.Position); err != nil {
		t.Fatal(err)
	}
	if a := startedAttempt(t, rc.pay, id); a.AskedUSDCents != 231 {
		t.Fatalf("the attempt records %d asked, want 231", a.AskedUSDCents)
	}
	rc.clk.advance(time.Millisecond)
	return out
}

// complete reports the processor's success of out's session without an amount, by a signed
// event or by the session's Get in a reconciliation of the receipt.
func complete(t *testing.T, rc reconcileEnv, events *commands.ApplyProcessorEventHandler, verify *commands.ReconcileOnrampHandler,
	by, id string, out commands.OnrampStarted) {
	t.Helper()
	hash := "0x" + strings.Repeat("7", 64)
	if by == "signed event" {
		if _, err := events.Handle(rc.ctx, commands.ApplyProcessorEvent{EventID: "evt_" + id, SessionID: out.SessionID, ReceiptID: id,
			AttemptID: out.AttemptID, Status: "fulfillment_complete", TransactionHash: hash, Body: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		return
	}
	rc.proc.set(out.SessionID, func(s *commands.OnrampSession) { s.Status, s.TransactionHash = "fulfillment_complete", hash })
	if _, _, err := verify.Verify(rc.ctx, id); err != nil {
		t.Fatal(err)
	}
}

// startedAttempt is the receipt's last AttemptStarted as recorded.
func startedAttempt(t *testing.T, e *payEnv, id string) receipt.AttemptStarted {
	t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	if err != nil {
		t.Fatal(err)
	}
	var a receipt.AttemptStarted
	for _, ev := range evs {
		if ev.Type == receipt.EventAttemptStarted {
			d, err := receipt.Decode(ev.Type, ev.Data)
			if err != nil {
				t.Fatal(err)
			}
			a = d.(receipt.AttemptStarted)
		}
	}
	return a
}
