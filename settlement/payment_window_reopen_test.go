package settlement_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestPaymentWindowReopensAStuckACHReceipt: receipts whose ACH payment was accepted and then
// completed short before stop 69 (PaymentIgnored without reopened: the stream written as then)
// stayed ach_pending for good; the payment window process without the stuck list still leaves
// them so. With it (as serve builds it) those whose window has ended are reopened and expired in
// one append (webhook failed), and an accepted payment still settling is left alone. A later
// pass finds nothing more.
func TestPaymentWindowReopensAStuckACHReceipt(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	ended, other, settling := e.receipt(), e.receipt(), e.receipt()
	for i, id := range []string{ended, other, settling} {
		e.achAccepted(id, i)
	}
	e.shortBeforeStop69(ended)
	e.shortBeforeStop69(other)
	e.advance(time.Hour) // their windows are over

	plain := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool), e.cfg, e.now)
	if got, err := plain.Handle(e.ctx); err != nil || len(got) != 0 || e.state(ended).Status != receipt.StatusACHPending {
		t.Fatalf("without the stuck list: %v %v, status %s", got, err, e.state(ended).Status)
	}
	ids, err := readmodels.NewReceipts(e.pool).StuckACHReceipts(e.ctx, 10)
	if err != nil || len(ids) != 2 || strings.Contains(strings.Join(ids, ","), settling) {
		t.Fatalf("stuck list: %v %v", ids, err)
	}
	h := settlement.NewPaymentWindowHandler(e.store, settlement.WithStuckACH(pgstore.NewReceipts(e.pool), readmodels.NewReceipts(e.pool)), e.cfg, e.now)
	got, err := h.Handle(e.ctx)
	if err != nil || len(got) != 2 {
		t.Fatalf("pass with the stuck list changed %v (%v), want the two stuck", got, err)
	}
	awaitReceiptsProjected(t, e.ctx, e.pool)
	for _, id := range []string{ended, other} {
		e.wantExpired(id, "")
		if h := e.history(id); !strings.HasSuffix(h, receipt.EventPaymentIgnored+","+receipt.EventPaymentIgnored+","+receipt.EventWindowExpired) {
			t.Fatalf("history of %s: %s", id, h)
		}
		if st := e.state(id); st.PreviousStatus != receipt.StatusPending {
			t.Fatalf("%s was not reopened before its expiry: previous %s", id, st.PreviousStatus)
		}
	}
	if st := e.state(settling); st.Status != receipt.StatusACHPending {
		t.Fatalf("the payment still settling: %s", st.Status)
	}
	e.advance(2 * time.Minute)
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 0 {
		t.Fatalf("a later pass changed %v (%v)", got, err)
	}
}

// TestPaymentWindowReopensAStuckACHReceiptInItsWindow: reopened before its window's end, the
// receipt is pending (its status webhook queued) and a new payment may start; the window fails
// it at its end as any reopened receipt.
func TestPaymentWindowReopensAStuckACHReceiptInItsWindow(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	id := e.receipt()
	e.achAccepted(id, 0)
	e.shortBeforeStop69(id)
	h := settlement.NewPaymentWindowHandler(e.store, settlement.WithStuckACH(pgstore.NewReceipts(e.pool), readmodels.NewReceipts(e.pool)), e.cfg, e.now)
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 1 {
		t.Fatalf("reopening pass: %v %v", got, err)
	}
	awaitReceiptsProjected(t, e.ctx, e.pool)
	st := e.state(id)
	if st.Status != receipt.StatusPending || st.Expired() || receipt.CanStartAttempt(st) != nil {
		t.Fatalf("reopened in its window: %s, start %v", st.Status, receipt.CanStartAttempt(st))
	}
	e.webhookQueued(id, receipt.StatusPending)
	e.advance(time.Hour)
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 1 {
		t.Fatalf("pass at the window's end: %v %v", got, err)
	}
	e.wantExpired(id, "")
}

// achAccepted starts an onramp session for id (service-opened) and records its ACH acceptance.
func (e *windowEnv) achAccepted(id string, n int) {
	e.t.Helper()
	at := e.now().UnixMilli()
	e.change(id, func(receipt.State) ([]receipt.Event, error) {
		a := "att_" + string(rune('a'+n))
		return []receipt.Event{
			receipt.AttemptStarted{AttemptID: a, Kind: "onramp", SessionID: "cos_" + a, OpenedBy: "service", At: at},
			receipt.ACHAccepted{AttemptID: a, At: at + 1},
		}, nil
	})
}

// shortBeforeStop69 records the short completion of id's accepted ACH payment as stop 68 did:
// a PaymentIgnored of the current attempt without reopened (the receipt stays ach_pending).
func (e *windowEnv) shortBeforeStop69(id string) {
	e.t.Helper()
	at := e.now().UnixMilli()
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return []receipt.Event{receipt.PaymentIgnored{AttemptID: st.CurrentAttempt, VerifiedBy: "processor", TransactionHash: "0x" + strings.Repeat("1", 64),
			Token: "USD", AmountUnits: "600", Decimals: 2, Why: "underpaid: the processor reported 6.00 USD of the 10.00 USD due", StatusAtArrival: st.Status, At: at}}, nil
	})
	if st := e.state(id); st.Status != receipt.StatusACHPending || !st.ACHStuck() {
		e.t.Fatalf("before stop 69's short completion: %s", st.Status)
	}
}
