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

// TestHangingMerchantsMarkedBacklogDoesNotHoldUpOthersMarked: a merchant with more marked
// notifications due (its receiver was down; retried with backoff) than its share, to a receiver
// that hangs, does not delay another merchant's marked notification that is due: the workers take
// marked ones whose backoff is due under the per-merchant share of pending ones, and the scheduled
// pass leaves them to the workers, so the hanging merchant never has more than its share on the
// wire. They were retried only by the scheduled pass (every 30 s), oldest due first with no share:
// one merchant's 10,000 due to a hanging receiver delayed every other merchant's marked retries by
// about 25 minutes.
func TestHangingMerchantsMarkedBacklogDoesNotHoldUpOthersMarked(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = 1; d.Timeout = 20 * time.Second })
	slow, slowHits := hangingReceiver(t)
	fast := newScript(t)
	busyMerchant, other := "0x"+strings.Repeat("b", 40), "0x"+strings.Repeat("c", 40)
	var ids []string
	for i := range receiverShare + 40 {
		ids = append(ids, fmt.Sprintf("mslow-%d", i))
		w.paidReceiptOf(t, busyMerchant, ids[i], slow.URL)
	}
	w.paidReceiptOf(t, other, "mfast", fast.srv.URL)
	bg := context.Background()
	// Everything marked and due, the backlog's before the other merchant's.
	if _, err := w.pool.Exec(bg, `UPDATE webhook_notifications SET state = 'marked', attempts = 2, marked_at = now(),
		next_attempt_at = CASE WHEN receipt_id = 'mfast' THEN now() - interval '1 second' ELSE now() - interval '1 minute' END`); err != nil {
		t.Fatal(err)
	}
	w.run(t)
	wait.Until(t, "the other merchant's marked webhook while the backlog hangs", 10*time.Second, func() bool {
		return len(fast.got()) == 1 && w.state(t, "mfast") == readmodels.NoteDelivered
	})
	wait.Until(t, "the backlog's share on the wire", 10*time.Second, func() bool { return slowHits.Load() >= receiverShare })
	// A scheduled pass while the workers run takes none: the backlog's share stays its share.
	ctx, cancel := context.WithCancel(bg)
	passed := make(chan int, 1)
	go func() {
		tried, _, _ := w.disp.ReconcileMarked(ctx, false)
		passed <- tried
	}()
	t.Cleanup(cancel)
	var tried int
	wait.Until(t, "the scheduled pass", 10*time.Second, func() bool {
		select {
		case tried = <-passed:
			return true
		default:
			return slowHits.Load() > receiverShare
		}
	})
	if n := slowHits.Load(); n > receiverShare || tried != 0 {
		t.Fatalf("the hanging merchant has %d attempts on the wire (share %d); the scheduled pass tried %d", n, receiverShare, tried)
	}
}
