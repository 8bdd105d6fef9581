package chain_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
)

// Stop 62: FirstBlockAt trusted block timestamps never to decrease. A node whose stamps do (a
// buggy or hostile one, or one whose blocks changed between two batches) left the search with
// its bound of blocks after the time below its bound of blocks before it: the next batch asked
// for block numbers wrapped around 2^64 and, answered, the search went on for ever, a batch of
// headers each round. Such an answer is now an error at once.
func TestFirstBlockAtRefusesTimestampsThatDecrease(t *testing.T) {
	t.Parallel()
	const head = 99
	stamp := func(n uint64) uint64 {
		switch n {
		case 35:
			return 5000 // far after its neighbours
		case 67:
			return 10 // before block 35's
		}
		return 1000 + n
	}
	var requests atomic.Int64
	node := rpcServedBy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqs []struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&reqs); err != nil {
			http.Error(w, "batches only", http.StatusBadRequest)
			return
		}
		var out []map[string]any
		for _, q := range reqs {
			requests.Add(1)
			var num hexutil.Uint64
			_ = json.Unmarshal(q.Params[0], &num)
			n := uint64(num) % (head + 1) // any number answered: a node that answers whatever it is asked
			h := &types.Header{Number: new(big.Int).SetUint64(n), Time: stamp(n), Difficulty: big.NewInt(0), GasLimit: 30_000_000}
			out = append(out, map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": h})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s := chain.DepositScanner{RPC: node}
	got, err := s.FirstBlockAt(ctx, time.Unix(1060, 0), head)
	if err == nil || ctx.Err() != nil || requests.Load() > 40 {
		t.Fatalf("FirstBlockAt over decreasing stamps: block %d, %v, after %d requests; want an error at once", got, err, requests.Load())
	}
}
