package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

var _ commands.ProcessorEvents = (*readmodels.ProcessorEvents)(nil)

// The processor's events are kept in PostgreSQL (deduplication, shared sessions); the receipts'
// events in the memory store.
func TestApplyProcessorEvent(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	pool := pgtest.Pool(t)
	kept := readmodels.NewProcessorEvents(pool)
	h := commands.NewApplyProcessorEventHandler(e.store, kept, e.now)
	id := e.receipt(payMerchant, "USD", 2500)
	e.at = e.at.Add(5 * time.Minute) // the events arrive after their creation (an event is never dated after its arrival)
	processed := func(eventID string) bool {
		t.Helper()
		var done bool
		if err := pool.QueryRow(e.ctx, `SELECT processed_at IS NOT NULL FROM processor_events WHERE id = $1`, eventID).Scan(&done); err != nil {
			t.Fatalf("event %s: %v", eventID, err)
		}
		return done
	}
	event := func(eventID, receiptID, status, amountUSD string) commands.ApplyProcessorEvent {
		return commands.ApplyProcessorEvent{EventID: eventID, Created: 1_795_000_100, SessionID: "cos_9", ReceiptID: receiptID, AttemptID: "att_merchant",
			Status: status, SourceAmountUSD: amountUSD, Body: []byte(`{"id":"` + eventID + `"}`)}
	}

	for name, cmd := range map[string]commands.ApplyProcessorEvent{
		"no id":             event("", id, "fulfillment_processing", ""),
		"no status":         event("evt_x", id, "", ""),
		"a status too long": event("evt_y", id, strings.Repeat("s", 65), ""),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := h.Handle(e.ctx, cmd)
			wantRefusal(t, err, "invalid_input", "processor event needs an id and a data.status of fulfillment_processing, ach_pending")
		})
	}
	// A signed event whose status this version does not act on (a refund at the processor) is
	// kept, once, and changes nothing: refused, it was lost while the processor retried it.
	for range 2 {
		out, err := h.Handle(e.ctx, event("evt_refund", id, "refunded", ""))
		if err != nil || out.Result.Version != 0 || (out.Unhandled != "refunded") == !out.Duplicate || !processed("evt_refund") {
			t.Fatalf("an event of an unhandled status: %+v %v", out, err)
		}
	}
	if st := e.state(id); st.Status != receipt.StatusGenerated {
		t.Fatalf("an unhandled status changed the receipt: %s", st.Status)
	}
	_, err := h.Handle(e.ctx, event("evt_amount", id, "fulfillment_processing", "-1"))
	wantRefusal(t, err, "invalid_input", "data.sourceAmountUsd invalid amount")
	if processed("evt_amount") {
		t.Fatal("an event with an unreadable amount was marked processed")
	}

	// A session the service did not start opens an attempt; the event's time is its creation.
	out, err := h.Handle(e.ctx, event("evt_1", id, "fulfillment_processing", ""))
	if err != nil || out.Duplicate || out.Stored || out.Result.Version != 3 || !processed("evt_1") {
		t.Fatalf("first event: %+v %v", out, err)
	}
	st := e.state(id)
	if a, _ := st.Current(); st.Status != receipt.StatusPending || a.ID != "att_merchant" || a.SessionID != "cos_9" || !a.SessionUnique || a.StartedAt != 1_795_000_100_000 {
		t.Fatalf("after processing: %s %+v", st.Status, a)
	}
	// A replay is a no-op.
	if out, err := h.Handle(e.ctx, event("evt_1", id, "fulfillment_processing", "")); err != nil || !out.Duplicate || e.history(id) != "ReceiptGenerated,PaymentAttemptStarted,PaymentSubmitted" {
		t.Fatalf("replay: %+v %v, history %s", out, err, e.history(id))
	}
	// The same session reported for another receipt is shared, for both.
	other := e.receipt(payMerchant, "USD", 100)
	if _, err := h.Handle(e.ctx, event("evt_2", other, "fulfillment_processing", "")); err != nil {
		t.Fatal(err)
	}
	if a, _ := e.state(other).Current(); a.SessionUnique {
		t.Fatalf("a session used by two receipts is unique: %+v", a)
	}
	// Paid, with the processor's amount rounded to the cent.
	paid := event("evt_3", id, "fulfillment_complete", "25.375")
	paid.TransactionHash, paid.WalletAddress = "0xABC"+strings.Repeat("0", 61), "0xAbCd"+strings.Repeat("1", 36)
	if _, err := h.Handle(e.ctx, paid); err != nil {
		t.Fatal(err)
	}
	st = e.state(id)
	if p := st.Payment; st.Status != receipt.StatusPaid || p.TransactionHash != "0xabc"+strings.Repeat("0", 61) || p.BuyerWallet != "0xabcd"+strings.Repeat("1", 36) ||
		*p.SourceAmount != 2538 || p.Token != "USDC" {
		t.Fatalf("paid: %s %+v", st.Status, st.Payment)
	}
	// An unknown receipt, or none: kept for reconciliation, answered as stored, not processed.
	for _, rid := range []string{"rcpt_nobody", ""} {
		if out, err := h.Handle(e.ctx, event("evt_unknown"+rid, rid, "fulfillment_complete", "")); err != nil || !out.Stored {
			t.Fatalf("unknown receipt %q: %+v %v", rid, out, err)
		}
		if processed("evt_unknown" + rid) {
			t.Fatalf("event for unknown receipt %q marked processed", rid)
		}
	}
}
