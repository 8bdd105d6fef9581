package webhooks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestWorkersTogetherKeepAMerchantToItsShare: eight workers claiming at once leave a merchant
// whose receiver hangs, with a backlog, at most receiverShare notifications claimed, all workers
// together. Each worker read the merchant's count in flight before claiming and counted its items
// only when its claim came back, so workers claiming together each saw the share free and each
// took it: the merchant had several times its share on the wire.
func TestWorkersTogetherKeepAMerchantToItsShare(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Workers = 8; d.Timeout = 20 * time.Second })
	slow, slowHits := hangingReceiver(t)
	busyMerchant := "0x" + strings.Repeat("d", 40)
	for i := range receiverShare + 8*claimBatch {
		w.paidReceiptOf(t, busyMerchant, fmt.Sprintf("share-%d", i), slow.URL)
	}
	w.run(t)
	wait.Until(t, "the backlog's share on the wire", 10*time.Second, func() bool { return slowHits.Load() >= receiverShare })
	// A later claim: what the workers claimed at once is claimed by then.
	fast := newScript(t)
	w.paidReceiptOf(t, "0x"+strings.Repeat("e", 40), "share-fast", fast.srv.URL)
	wait.Until(t, "the other merchant's webhook", 10*time.Second, func() bool { return len(fast.got()) == 1 })
	var leased int
	if err := w.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_notifications
		WHERE merchant_wallet = $1 AND lease_token IS NOT NULL`, busyMerchant).Scan(&leased); err != nil {
		t.Fatal(err)
	}
	if leased > receiverShare {
		t.Fatalf("the hanging merchant has %d notifications claimed, more than its share %d", leased, receiverShare)
	}
}
