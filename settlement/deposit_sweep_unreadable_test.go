package settlement_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/syncbuf"
)

// TestSweepDepositsPastAReceiptThatCannotBeRead (stop 65): a deposit receipt whose stream holds
// an event this build cannot read (a newer build's, during a rollback or a rolling upgrade) failed
// every sweep pass: at recording a sweep that named it (the other receipts of that sweep were
// never recorded swept, so never distributed) and at its load among the paid receipts claimed (no
// deposit of any merchant was swept). It is now passed over, logged once, and every pass returns
// its error; the others are recorded and swept.
func TestSweepDepositsPastAReceiptThatCannotBeRead(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	first := e.paidDeposits(merchant, st.Address, 2) // swept together, then one cannot be read
	e.listedPaid(first[1])
	var logs syncbuf.Buffer
	e.ctx = zerolog.New(&logs).WithContext(e.ctx)
	h := e.sweeperOf(e.sweeper)
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 1 || out.Deposits != 2 {
		t.Fatalf("the first pass: %+v %v, want one sweep of both", out, err)
	}
	later := e.paidDeposits(merchant, st.Address, 2) // claimed, then one cannot be read
	e.listedPaid(later[1])
	e.appendUnknown(first[0])
	e.appendUnknown(later[0])

	e.sweepAll(h, first[1], later[1])
	_, err := h.Handle(e.ctx)
	if !errors.Is(err, receipt.ErrUnknownEvent) {
		t.Fatalf("a pass returned %v, want the unreadable receipt's error (the worker degraded)", err)
	}
	for _, id := range []string{first[0], later[0]} {
		if sw := e.sweptEvents(id); len(sw) != 0 {
			t.Errorf("unreadable receipt %s recorded swept: %+v", id, sw)
		}
		if n := strings.Count(logs.String(), `"stream":"`+receipt.Stream(id)+`"`); n != 1 {
			t.Errorf("%d log lines naming %s, want 1:\n%s", n, receipt.Stream(id), logs.String())
		}
	}
}
