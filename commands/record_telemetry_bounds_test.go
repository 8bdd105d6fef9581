package commands_test

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
)

// TestTelemetryAttemptIDIsBounded: the public telemetry route stored any attemptId the browser
// sent, up to the body limit (1 MiB), 20 times an hour per receipt. An attemptId longer than any
// the service or a processor gives is refused and nothing is stored.
func TestTelemetryAttemptIDIsBounded(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	verify := commands.NewReconcileOnrampHandler(e.store, newFakeProcessor(), noOpenAttempts{}, e.now)
	h := commands.NewRecordTelemetryHandler(e.store, verify, e.now)
	id := e.receipt(payMerchant, "USD", 1000)
	_, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: "error", AttemptID: strings.Repeat("a", commands.MaxTelemetryAttemptID+1)})
	wantRefusal(t, err, "invalid_input", "attemptId")
	stream := commands.TelemetryStream(id, e.now())
	if evs, err := e.store.ReadStream(e.ctx, stream, 1, 10); err != nil || len(evs) != 0 {
		t.Fatalf("the refused report stored %d events (%v)", len(evs), err)
	}
	if _, err := h.Handle(e.ctx, commands.RecordTelemetry{ReceiptID: id, Event: "error", AttemptID: "att_" + strings.Repeat("0", 32)}); err != nil {
		t.Fatalf("a service attempt id: %v", err)
	}
}
