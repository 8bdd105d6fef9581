package settlement_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
)

// panickingNotifier panics when a charge's webhook is queued: a panic inside a charge's recording.
type panickingNotifier struct{}

func (panickingNotifier) Queue(context.Context, string, string, string, string, map[string]any) error {
	var m map[string]int
	m["poison payload"]++ // a nil map
	return nil
}

// TestChargeRecordingThatPanicsFailsTheRun: the charges of a wave are recorded on goroutines of
// their own, and a panic there ended the whole process. It is now that charge's error: the run
// fails (logged with its stack, run again at the next tick), the charge mined and recorded before
// the panic stands, and the next run charges no one twice.
func TestChargeRecordingThatPanicsFailsTheRun(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	id := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	e.listed(id)
	h := e.handler(nil)
	logs := &syncBuffer{}
	h.Log = zerolog.New(logs)
	h.Notify = panickingNotifier{}
	meta := eventstore.Metadata{Actor: "test"}
	if _, err := h.ChargeDue(e.ctx, meta); err == nil || !strings.Contains(err.Error(), "panic: assignment to entry in nil map") {
		t.Fatalf("ChargeDue returned %v, want the panic as its error", err)
	}
	if l := logs.String(); !strings.Contains(l, "goroutine panicked") || !strings.Contains(l, "subscription_charging_panic_test.go") {
		t.Fatalf("the panic is not logged with its stack:\n%s", l)
	}
	h.Notify = nil
	run, err := h.ChargeDue(e.ctx, meta)
	if err != nil {
		t.Fatal(err)
	}
	if st := e.state(id); st.Charges != 1 || run.Succeeded != 0 {
		t.Fatalf("charges %d, the second run charged %d", st.Charges, run.Succeeded)
	}
}
