package webhooks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// TestAMerchantsMarkedBacklogDoesNotHoldItsOtherReceiversFirstAttempt: a merchant whose marked
// notifications to a hanging receiver fill their share (due before everything else) still has
// its new notification to another receiver sent at once: the workers' share is per merchant and
// class (marked or not, readmodels.ShareKey). With one share per merchant the first attempt
// waited behind the backlog's attempts for the timeout (20 s here); the backlog still has at most
// receiverShare attempts on the wire.
func TestAMerchantsMarkedBacklogDoesNotHoldItsOtherReceiversFirstAttempt(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = 1; d.Timeout = 20 * time.Second })
	slow, slowHits := hangingReceiver(t)
	fast := newScript(t)
	merchant := "0x" + strings.Repeat("d", 40)
	for i := range receiverShare + 8 {
		w.paidReceiptOf(t, merchant, fmt.Sprintf("cslow-%d", i), slow.URL)
	}
	w.paidReceiptOf(t, merchant, "cfast", fast.srv.URL)
	// The backlog marked and due a minute ago; the other receiver's first attempt due after it.
	if _, err := w.pool.Exec(context.Background(), `UPDATE webhook_notifications SET
		state = CASE WHEN receipt_id = 'cfast' THEN 'pending' ELSE 'marked' END,
		attempts = CASE WHEN receipt_id = 'cfast' THEN 0 ELSE 2 END,
		marked_at = CASE WHEN receipt_id = 'cfast' THEN NULL ELSE now() END,
		next_attempt_at = CASE WHEN receipt_id = 'cfast' THEN now() - interval '1 second' ELSE now() - interval '1 minute' END`); err != nil {
		t.Fatal(err)
	}
	w.run(t)
	wait.Until(t, "the backlog's share on the wire", 10*time.Second, func() bool { return slowHits.Load() >= receiverShare })
	wait.Until(t, "the merchant's first attempt to its other receiver while the backlog hangs", 10*time.Second, func() bool {
		return len(fast.got()) == 1 && w.state(t, "cfast") == readmodels.NoteDelivered
	})
	if n := slowHits.Load(); n > receiverShare {
		t.Fatalf("the marked backlog has %d attempts on the wire, share %d", n, receiverShare)
	}
}
