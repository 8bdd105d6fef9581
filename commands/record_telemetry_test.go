package commands_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// noOpenAttempts is a listing that finds nothing: these tests verify receipts by id.
type noOpenAttempts struct{}

func (noOpenAttempts) OpenOnrampAttemptsPage(context.Context, time.Time, time.Time, string, int) ([]string, time.Time, error) {
	return nil, time.Time{}, nil
}

func TestRecordTelemetry(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	verify := commands.NewReconcileOnrampHandler(e.store, f, noOpenAttempts{}, e.now)
	h := commands.NewRecordTelemetryHandler(e.store, verify, e.now)
	id := e.receipt(payMerchant, "USD", 1000)

	for _, ev := range []string{"hacked", "onramp_", ""} {
		_, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: ev})
		wantRefusal(t, err, "invalid_input", "event must be one of")
	}
	if _, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: "rcpt_nobody", Event: "error"}); !errors.Is(err, receipt.ErrNotFound) {
		t.Fatalf("unknown receipt: %v", err)
	}
	for _, ev := range []string{"link_opened", "checkout_initialized", "onramp_widget_loaded", "error", "checkout_closed"} {
		if out, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: ev}); err != nil || out.Verified != nil {
			t.Fatalf("%s: %+v %v", ev, out, err)
		}
	}
	// A wallet error names the catalog entry the page showed; any other code is refused.
	if _, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: "error", Code: "PORTAL_NOT_A_CODE"}); err == nil {
		t.Fatal("unknown code accepted")
	} else {
		wantRefusal(t, err, "invalid_input", "code must be a failure catalog code")
	}
	if _, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: "error", Code: "PORTAL_CHAIN_USER_REJECTED"}); err != nil {
		t.Fatal(err)
	}
	if st := e.state(id); st.Status != receipt.StatusGenerated || st.Failure != nil {
		t.Fatalf("telemetry changed the receipt: %s", st.Status)
	}

	// checkout_success is the browser's word: the processor is asked, and only its answer counts.
	started, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: id})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: "checkout_success"}); err != nil || out.Verified != nil {
		t.Fatalf("checkout_success with the session still open: %+v %v", out, err)
	}
	if st := e.state(id); st.Status != receipt.StatusGenerated {
		t.Fatalf("checkout_success alone changed the status: %s", st.Status)
	}
	f.set(started.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("EF", 32), amount("10.004")
	})
	out, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: "checkout_success", AttemptID: started.AttemptID})
	if err != nil || out.Verified == nil || out.Verified.ReceiptID != id {
		t.Fatalf("verified: %+v %v", out, err)
	}
	st := e.state(id)
	if st.Status != receipt.StatusPaid || st.Payment.TransactionHash != "0x"+strings.Repeat("ef", 32) || *st.Payment.SourceAmount != 1000 || st.Payment.VerifiedBy != "processor" {
		t.Fatalf("after verification: %s %+v", st.Status, st.Payment)
	}

	// A processor that does not answer: the report stays recorded, the status unchanged.
	id2 := e.receipt(payMerchant, "USD", 500)
	if _, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: id2}); err != nil {
		t.Fatal(err)
	}
	f.getErr = errors.New("processor down")
	if out, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id2, Event: "checkout_success"}); err != nil || out.Verified != nil {
		t.Fatalf("verification failure: %+v %v", out, err)
	} else if out.Unverified == nil { // what the logging decorator reports
		t.Fatal("a failed verification is not in the outcome")
	}
	// Telemetry stays out of the receipt's stream (no command replays it), in its own.
	if h := e.history(id2); strings.Contains(h, "TelemetryRecorded") {
		t.Fatalf("telemetry in the receipt's stream: %s", h)
	}
	if evs, err := e.store.ReadStream(e.ctx, commands.TelemetryStream(id2, e.now()), 1, 100); err != nil || len(evs) != 1 || evs[0].Type != receipt.EventTelemetry {
		t.Fatalf("telemetry stream: %d events, %v", len(evs), err)
	}
}
