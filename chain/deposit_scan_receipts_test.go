package chain_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
)

// receiptsLagging is a proxy to the node at target that answers null to every
// eth_getTransactionReceipt of a batch while lag is set: a load-balanced provider whose node
// answering the batch has not indexed the receipts of the blocks another node served.
func receiptsLagging(t *testing.T, target string, lag *atomic.Bool) *chain.RPC {
	t.Helper()
	return nodeProxy(t, target, func(w http.ResponseWriter, _ *http.Request, body []byte, _ http.Handler) bool {
		var reqs []struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if !lag.Load() || json.Unmarshal(body, &reqs) != nil || len(reqs) == 0 || reqs[0].Method != "eth_getTransactionReceipt" {
			return false
		}
		out := make([]map[string]any, len(reqs))
		for i, q := range reqs {
			out[i] = map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": nil}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
		return true
	})
}

// Stop 62: an ETH payment to a watched deposit whose transaction's receipt the node did not
// have (a load balancer's node behind the one that served the block) was left out of the scan as
// if it had reverted: the detector moved its cursor past it, and the payment was never credited.
// The scan now fails (the step reads the block again) and finds it once the receipt is there.
func TestDepositScanDoesNotSkipAnETHPaymentWithoutItsReceipt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	lag := &atomic.Bool{}
	lag.Store(true)
	s := chain.DepositScanner{RPC: receiptsLagging(t, e.url, lag)}
	head, err := s.Head(ctx)
	e.ok(err)
	watched := e.elsewhere
	e.mined(e.payETH(e.stranger, watched, eth(2)))
	watch := watching(func(a string) bool { return common.HexToAddress(a) == watched })
	if scan, err := s.Scan(ctx, head+1, 100, watch); err == nil {
		t.Fatalf("a scan whose ETH payment had no receipt: %+v, want an error (read again)", scan)
	}
	lag.Store(false)
	scan, err := s.Scan(ctx, head+1, 100, watch)
	if err != nil || len(scan.Transfers) != 1 || scan.Transfers[0].Token != "ETH" {
		t.Fatalf("the scan once the receipt is there: %+v %v", scan, err)
	}
}
