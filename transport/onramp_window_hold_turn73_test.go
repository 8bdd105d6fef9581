package transport

import (
	"slices"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// TestEveryInstancesHealthzNamesTheWindowsHold (stop 73): with one instance at a time asking the
// processor at windows' ends, only the asker's /healthz named the payment window while a
// receipt's expiry was held for the processor's answer; the other instance's said ok. Two apps on
// one database, as serve wires them: once the hold has lasted past the backoff and a minute,
// both name it, whichever of them asks.
func TestEveryInstancesHealthzNamesTheWindowsHold(t *testing.T) {
	t.Parallel()
	w := holdOnTwoInstances(t)
	e, other, both := w.e, w.other, w.both
	e.clk.Advance(time.Hour + time.Second) // the window has ended 1 s ago
	both()
	e.clk.Advance(time.Minute + settlement.WindowAskBackoff)
	both()
	for name, in := range map[string]*env{"the first instance": e, "the second": other} {
		wait.Until(t, name+"'s /healthz names the payment window", 30*time.Second, func() bool { return slices.Contains(in.stuck(), "payment window") })
	}
}
