package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// TestSplitTransactionsByAnEarlierSplitAddress: after the split is deployed again at a new address
// (a new development chain), its earlier address still names this merchant's split: the filter
// answered [] for it, though receipts were distributed there.
func TestSplitTransactionsByAnEarlierSplitAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	ctx := context.Background()
	sp, err := commands.NewSplits(e.svc.Events).Get(ctx, m.wallet)
	if err != nil {
		t.Fatal(err)
	}
	earlier := sp.Address
	e.item(m, `{"sku":"a","name":"A","priceUsd":10}`)
	id := decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"a","qty":1}]}`))["receipt"].(map[string]any)["receiptId"].(string)
	e.pay(id, "evt_moved")
	_, res, err := commands.ChangeReceipt(ctx, e.svc.Events, id, eventstore.Metadata{Actor: "test"}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.DistributeSplit(st, receipt.SplitDistributed{TransactionHash: "0x" + strings.Repeat("6", 64), At: time.Now().UnixMilli()})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, id, res); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.RedeploySplit(ctx, e.svc.Events, time.Now(), eventstore.Metadata{}, m.wallet, "0x"+strings.Repeat("7", 40), "a new chain"); err != nil {
		t.Fatal(err)
	}
	// Once the remembered split is read again (commands.SplitFreshness), the new address names it.
	waitUntil(t, "the split read at its new address", 10*time.Second, func() bool {
		return len(decodeArray(t, e.dev(m, http.MethodGet, "/api/split/transactions?address=0x"+strings.Repeat("7", 40), ""))) == 1
	})
	if l := decodeArray(t, e.dev(m, http.MethodGet, "/api/split/transactions?address="+earlier, "")); len(l) != 1 || l[0]["receiptId"] != id {
		t.Fatalf("by the split's earlier address %s: %v", earlier, l)
	}
}
