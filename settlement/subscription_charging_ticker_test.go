package settlement_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// flakyNode refuses the spend checks while down is set, counting the refusals.
type flakyNode struct {
	settlement.ChargeChain
	down    *atomic.Bool
	refused *atomic.Int32
}

func (f flakyNode) CheckSpends(ctx context.Context, checks []settlement.SpendCheck) ([]settlement.SpendStatus, error) {
	if f.down.Load() {
		f.refused.Add(1)
		return nil, errors.New("dial tcp: connection refused")
	}
	return f.ChargeChain.CheckSpends(ctx, checks)
}

// A daily run that fails (the node down) is logged at error level and run again at the next
// tick, so the due subscriptions are charged once the node is back. Before, the failed run
// counted as the day's: nothing was charged for a day, with a warning.
func TestChargeSubscriptionsDailyRunFailedIsRunAgain(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	id := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	e.listed(id)
	down := new(atomic.Bool)
	down.Store(true)
	refused := new(atomic.Int32)
	h := e.handler(flakyNode{ChargeChain: e.op, down: down, refused: refused})
	logs := &syncBuffer{}
	h.Log = zerolog.New(logs)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx, func() bool { return true }, 24*time.Hour, 20*time.Millisecond) }()
	wait.Until(t, "the daily run to meet the node down", 30*time.Second, func() bool { return refused.Load() > 0 })
	down.Store(false)
	wait.Until(t, "the subscription charged once the node is back", 30*time.Second, func() bool { return e.state(id).Charges == 1 })
	if l := logs.String(); !strings.Contains(l, `"level":"error"`) || !strings.Contains(l, "daily run failed") {
		t.Fatalf("the failed daily run is not logged at error level:\n%s", l)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if st := e.state(id); st.Charges != 1 || st.ConsecutiveFailures != 0 {
		t.Fatalf("charges %d, failures %d", st.Charges, st.ConsecutiveFailures)
	}
}
