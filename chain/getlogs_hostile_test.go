package chain_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
)

// logsNode is a JSON-RPC node that answers only eth_getLogs: answer builds the logs of blocks
// [from, to], or refuses with an error (code, message) when refuse says so.
type logsNode struct {
	mu     sync.Mutex
	ranges [][2]uint64 // every range asked
	answer func(from, to uint64) []types.Log
	refuse func(from, to uint64) (int, string)
}

func (n *logsNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params []struct {
			From hexutil.Uint64 `json:"fromBlock"`
			To   hexutil.Uint64 `json:"toBlock"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "eth_getLogs" || len(req.Params) != 1 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	from, to := uint64(req.Params[0].From), uint64(req.Params[0].To)
	n.mu.Lock()
	n.ranges = append(n.ranges, [2]uint64{from, to})
	n.mu.Unlock()
	out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if code, msg := n.refuse(from, to); msg != "" {
		out["error"] = map[string]any{"code": code, "message": msg}
	} else {
		out["result"] = n.answer(from, to)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func dialLogsNode(t *testing.T, n *logsNode) *chain.RPC {
	t.Helper()
	return rpcServedBy(t, n)
}

var hostileToken = common.HexToAddress("0x00000000000000000000000000000000000000aa")

// transferLog is a Transfer log of hostileToken in block number (hash derived from it).
func transferLog(number uint64, index uint) types.Log {
	return types.Log{Address: hostileToken, Topics: []common.Hash{chain.TransferTopic, {1}, {2}}, Data: make([]byte, 32),
		BlockNumber: number, BlockHash: common.BigToHash(new(big.Int).SetUint64(number + 1000)), TxHash: common.Hash{3}, Index: index}
}

// Stop 62: providers refuse an eth_getLogs whose answer would be too large ("query returned more
// than 10000 results", "block range too large", code -32005). The range failed whole, every time:
// a detector catching up on a busy chain read the same refused range step after step, stuck for
// good. The range is now read in halves until the provider answers, and no block is skipped.
func TestFilterLogsSplitsARangeTheProviderRefuses(t *testing.T) {
	t.Parallel()
	for _, refusal := range []struct {
		code int
		msg  string
	}{{-32005, "query returned more than 10000 results"}, {-32000, "block range too large"}, {-32602, "Log response size exceeded."}} {
		n := &logsNode{
			answer: func(from, to uint64) []types.Log {
				var out []types.Log
				for b := from; b <= to; b++ {
					out = append(out, transferLog(b, 0))
				}
				return out
			},
			refuse: func(from, to uint64) (int, string) {
				if to-from+1 > 300 {
					return refusal.code, refusal.msg
				}
				return 0, ""
			},
		}
		logs, err := dialLogsNode(t, n).FilterLogs(context.Background(), 10, 2009, []common.Address{hostileToken}, [][]common.Hash{{chain.TransferTopic}})
		if err != nil {
			t.Fatalf("%q: %v", refusal.msg, err)
		}
		if len(logs) != 2000 {
			t.Fatalf("%q: %d logs, want one of each of the 2000 blocks", refusal.msg, len(logs))
		}
		for i, l := range logs {
			if l.BlockNumber != uint64(10+i) {
				t.Fatalf("%q: log %d of block %d", refusal.msg, i, l.BlockNumber)
			}
		}
	}

	// Another error is not a matter of size, nor is a rate limit (Infura's code -32005 too): it
	// fails the call at once, with the range named, and never multiplies the requests refused.
	for _, msg := range []string{"header not found", "daily request count exceeded, request rate limited"} {
		n := &logsNode{answer: func(uint64, uint64) []types.Log { return nil },
			refuse: func(uint64, uint64) (int, string) { return -32005, msg }}
		if _, err := dialLogsNode(t, n).FilterLogs(context.Background(), 0, 99, nil, nil); err == nil ||
			!strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "0-99") || len(n.ranges) != 1 {
			t.Fatalf("%q: %v after %d requests", msg, err, len(n.ranges))
		}
	}
}

// Stop 62: a node that answers more than it was asked (logs of blocks outside the range, of
// another contract or event, removed by a reorg, the same log twice) was believed: every such
// log went to the caller (a removed one or a duplicate counted again, an Approval taken for a
// Transfer by shape). Only the logs the query asked for are kept.
func TestFilterLogsKeepsOnlyWhatWasAsked(t *testing.T) {
	t.Parallel()
	good := transferLog(5, 0)
	removed := transferLog(6, 1)
	removed.Removed = true
	outside := transferLog(40, 0)
	other := transferLog(7, 2)
	other.Address = common.HexToAddress("0x00000000000000000000000000000000000000bb")
	approval := transferLog(8, 3)
	approval.Topics[0] = common.HexToHash("0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925")
	n := &logsNode{
		answer: func(uint64, uint64) []types.Log { return []types.Log{good, good, removed, outside, other, approval} },
		refuse: func(uint64, uint64) (int, string) { return 0, "" },
	}
	logs, err := dialLogsNode(t, n).FilterLogs(context.Background(), 0, 20, []common.Address{hostileToken}, [][]common.Hash{{chain.TransferTopic}})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 || logs[0].BlockNumber != 5 || logs[0].Index != 0 {
		t.Fatalf("logs %+v, want only the Transfer of block 5", logs)
	}
}
