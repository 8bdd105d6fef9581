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

// TestAMerchantsPendingBacklogDoesNotHoldItsOtherReceiversFirstAttempt: a merchant whose first
// attempts to a hanging receiver (a backlog, due before everything else) fill that receiver's
// share still has its first attempt to another receiver sent at once: within the merchant's share
// one receiver (the URL's origin, readmodels.ReceiverKey) has receiverShare places. With the share
// per merchant and class only, the backlog held the merchant's 32 places and the other receiver's
// first attempt waited for the timeout (20 s here); the backlog still has at most receiverShare
// attempts on the wire.
func TestAMerchantsPendingBacklogDoesNotHoldItsOtherReceiversFirstAttempt(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = 1; d.Timeout = 20 * time.Second })
	slow, slowHits := hangingReceiver(t)
	fast := newScript(t)
	merchant := "0x" + strings.Repeat("f", 40)
	for i := range merchantShare + 8 {
		w.paidReceiptOf(t, merchant, fmt.Sprintf("rslow-%d", i), slow.URL+fmt.Sprintf("/hook?order=%d", i))
	}
	w.paidReceiptOf(t, merchant, "rfast", fast.srv.URL)
	// The backlog due a minute ago; the other receiver's first attempt due after it.
	if _, err := w.pool.Exec(context.Background(), `UPDATE webhook_notifications SET
		next_attempt_at = CASE WHEN receipt_id = 'rfast' THEN now() - interval '1 second' ELSE now() - interval '1 minute' END`); err != nil {
		t.Fatal(err)
	}
	w.run(t)
	wait.Until(t, "the backlog's receiver's share on the wire", 10*time.Second, func() bool { return slowHits.Load() >= receiverShare })
	wait.Until(t, "the merchant's first attempt to its other receiver while the backlog hangs", 10*time.Second, func() bool {
		return len(fast.got()) == 1 && w.state(t, "rfast") == readmodels.NoteDelivered
	})
	if n := slowHits.Load(); n > receiverShare {
		t.Fatalf("the backlog's receiver has %d attempts on the wire, share %d", n, receiverShare)
	}
}
