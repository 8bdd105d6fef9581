package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/onchain"
)

// shiftedNode answers eth_getBlockByNumber for block n with block n+1 (a proxy that mixes up
// the answers of a batch, a load balancer's node a block ahead), single or batched; its head is
// block 10 and it has no logs.
func shiftedNode(t *testing.T) *chain.RPC {
	t.Helper()
	hash := func(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n + 1000)) }
	answer := func(method string, params []json.RawMessage) any {
		if method == "eth_getLogs" {
			return []any{}
		}
		var tag string
		_ = json.Unmarshal(params[0], &tag)
		n := uint64(10)
		if tag != "latest" {
			v, _ := hexutil.DecodeUint64(tag)
			n = v + 1
		}
		full := false
		_ = json.Unmarshal(params[1], &full)
		if full {
			return map[string]any{"number": hexutil.Uint64(n), "hash": hash(n), "parentHash": hash(n - 1), "transactions": []any{}}
		}
		return &types.Header{Number: new(big.Int).SetUint64(n), ParentHash: hash(n - 1), Difficulty: big.NewInt(0)}
	}
	type req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	return rpcServedBy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if body = bytes.TrimSpace(body); len(body) > 0 && body[0] == '[' {
			var reqs []req
			_ = json.Unmarshal(body, &reqs)
			var out []map[string]any
			for _, q := range reqs {
				out = append(out, map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": answer(q.Method, q.Params)})
			}
			_ = json.NewEncoder(w).Encode(out)
			return
		}
		var q req
		_ = json.Unmarshal(body, &q)
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": answer(q.Method, q.Params)})
	}))
}

// Stop 62: the block a node answered was taken for the block asked, whatever its number: block
// hashes (what confirms or drops a transfer at its depth) were another block's, and a scan's
// range was shifted by one (its parent check passed, each block being its successor's parent). A
// block or header of another number than asked is now an error: the step reads again.
func TestABlockOfAnotherNumberIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := chain.DepositScanner{RPC: shiftedNode(t)}
	if got, err := s.BlockHashes(ctx, []uint64{3, 4}); err == nil {
		t.Fatalf("hashes of blocks 3 and 4 from a node answering 4 and 5: %v", got)
	}
	watch := func(context.Context) (func(string) bool, error) { return func(string) bool { return false }, nil }
	if got, err := s.Scan(ctx, 3, 4, onchain.DepositWatch(watch)); err == nil {
		t.Fatalf("a scan of blocks 3-6 from a node answering 4-7: to %d, hashes %v", got.To, got.Hashes)
	}
}
