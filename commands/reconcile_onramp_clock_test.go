package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement/pgstore"
)

// clockedReceipt is a 3.00 receipt whose window ends an hour after the test clock's now, with
// two card sessions: the first (A) left, the second (B) open.
func clockedReceipt(t *testing.T, rc reconcileEnv) (id string, a, b commands.OnrampStarted, end time.Time) {
	t.Helper()
	total := money.Cents(300)
	end = rc.clk.now().Add(time.Hour)
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(rc.clk.now()), Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}},
		Subtotal: total, Total: total, ExpiresAt: end.UnixMilli()}
	if _, _, err := commands.GenerateReceipt(rc.ctx, rc.store, rc.clk.now(), eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	begin := func() commands.OnrampStarted {
		out, err := rc.start.Handle(rc.ctx, commands.StartOnramp{ReceiptID: g.ReceiptID})
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.runner.WaitFor(rc.ctx, out.Result.Position); err != nil {
			t.Fatal(err)
		}
		rc.clk.advance(time.Millisecond)
		return out
	}
	a, b = begin(), begin()
	return g.ReceiptID, a, b, end
}

// skewedInstances are the instances the clock tests judge by: one whose clock is 2 s behind the
// database's, 1 s after the database's end by its own clock (the window ended for the database);
// one 2 s ahead, 1 s before it (the window still open for the database).
var skewedInstances = []struct {
	name string
	skew time.Duration // the instance's clock against the database's
	at   time.Duration // the test clock against the end: the instance's reading
	open bool          // the window is open by the database's clock
}{
	{"an instance 2 s behind, 1 s after the database's end", -2 * time.Second, -time.Second, false},
	{"an instance 2 s ahead, 1 s before the database's end", 2 * time.Second, time.Second, true},
}

// offBy is an instance's own clock, off the database's by d (ahead when positive).
func offBy(d time.Duration) func() time.Time { return func() time.Time { return time.Now().Add(d) } }

// TestReconciliationIsJudgedByTheDatabasesClock: the window's end is judged by the database's
// clock (stop 71), but the reconciliation judged "before the end" by the instance's: an instance
// whose clock ran 2 s behind the database's resumed an earlier session's payment under way (A)
// 1 s after the database's end, and one 2 s ahead applied B's expiry instead of resuming A 1 s
// before it. Judged by the database's clock (JudgedBy), neither.
func TestReconciliationIsJudgedByTheDatabasesClock(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	db := pgstore.NewReceipts(rc.pool)
	for _, c := range skewedInstances {
		t.Run(c.name, func(t *testing.T) {
			id, a, b, end := clockedReceipt(t, rc)
			rc.proc.set(a.SessionID, func(s *commands.OnrampSession) { s.Status = "fulfillment_processing" })
			rc.proc.set(b.SessionID, func(s *commands.OnrampSession) { s.Status = "expired" })
			rc.clk.advance(end.Sub(rc.clk.now()) + c.at)
			h := commands.NewReconcileOnrampHandler(rc.store, rc.proc, readmodels.NewReceipts(rc.pool), rc.clk.now).JudgedBy(db, offBy(c.skew))
			if _, _, err := h.Verify(rc.ctx, id); err != nil {
				t.Fatal(err)
			}
			st := rc.pay.state(id)
			if resumed := st.CurrentAttempt == a.AttemptID && st.Status == receipt.StatusPending; resumed != c.open {
				t.Fatalf("A resumed %v, want %v: %s on %s, %s", resumed, c.open, st.Status, st.CurrentAttempt, rc.pay.history(id))
			}
			if !c.open && (st.Status != receipt.StatusFailed || st.CurrentAttempt != b.AttemptID) {
				t.Fatalf("after the end B's expiry is applied: %s on %s, %s", st.Status, st.CurrentAttempt, rc.pay.history(id))
			}
		})
	}
}

// TestProcessorEventsAreDatedByTheDatabasesClock: a processor event was dated by its `created`,
// the processor's clock, or without one by the instance's. A report of A's payment under way that
// arrived 1 s before the database's end, created by a processor whose clock runs 2 s ahead, was
// dated after the end and resumed nothing; one without `created` arriving 1 s after the
// database's end at an instance 2 s behind was dated before it and resumed A. Now an event is
// dated by its `created` but never after its arrival by the database's clock (JudgedBy).
func TestProcessorEventsAreDatedByTheDatabasesClock(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	db := pgstore.NewReceipts(rc.pool)
	for n, c := range []struct {
		name    string
		skew    time.Duration // the instance's clock against the database's
		at      time.Duration // the test clock against the end: the instance's reading
		created time.Duration // the event's created against the database's end; 0: none
		resumes bool
	}{
		{"created 1 s after the end by a processor 2 s ahead, arrived 1 s before it", 0, -time.Second, time.Second, true},
		{"no created, arrived at an instance 2 s behind, 1 s after the end", -2 * time.Second, -time.Second, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, a, _, end := clockedReceipt(t, rc)
			rc.clk.advance(end.Sub(rc.clk.now()) + c.at)
			h := commands.NewApplyProcessorEventHandler(rc.store, readmodels.NewProcessorEvents(rc.pool), rc.clk.now).JudgedBy(db, offBy(c.skew))
			ev := commands.ApplyProcessorEvent{EventID: "evt_clock_" + id, SessionID: a.SessionID, ReceiptID: id, AttemptID: a.AttemptID,
				Status: "fulfillment_processing", Body: []byte(`{}`)}
			if c.created != 0 {
				ev.Created = end.Add(c.created).Unix()
			}
			if _, err := h.Handle(rc.ctx, ev); err != nil {
				t.Fatal(err)
			}
			st := rc.pay.state(id)
			if resumed := st.CurrentAttempt == a.AttemptID; resumed != c.resumes || resumed && !strings.Contains(rc.pay.history(id), "PaymentSubmitted") {
				t.Fatalf("case %d: A resumed %v, want %v: %s on %s, %s", n, resumed, c.resumes, st.Status, st.CurrentAttempt, rc.pay.history(id))
			}
		})
	}
}
