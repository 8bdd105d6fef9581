package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
)

// sizeLimited is a proxy to the node at target that limits batches of full blocks as nodes do:
// beyond `answered` blocks a batch's answers are geth's "response too large" (its 25 MB cap),
// and a batch of more than `accepted` requests is refused whole (HTTP 413).
func sizeLimited(t *testing.T, target string, answered, accepted int) *chain.RPC {
	t.Helper()
	return nodeProxy(t, target, func(w http.ResponseWriter, r *http.Request, body []byte, proxy http.Handler) bool {
		var reqs []struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &reqs) != nil || len(reqs) == 0 || reqs[0].Method != "eth_getBlockByNumber" || len(reqs) <= answered {
			return false
		}
		if len(reqs) > accepted {
			http.Error(w, "batch too large", http.StatusRequestEntityTooLarge)
			return true
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		r.Header.Del("Accept-Encoding") // an answer to read here, not gzip
		rec := httptest.NewRecorder()
		proxy.ServeHTTP(rec, r)
		var out []map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
		for i := answered; i < len(out); i++ {
			delete(out[i], "result")
			out[i]["error"] = map[string]any{"code": -32003, "message": "response too large"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
		return true
	})
}

// Stop 62: a detector catching up (up to 2,000 blocks a step) asked for its blocks with their
// transactions in batches of 500. geth answers "response too large" past 25 MB of a batch (500
// busy mainnet blocks are far more), providers refuse large batches whole: the scan failed, and
// the next step asked the same, for ever. The scan now asks smaller batches and, when blocks
// are still refused, reads those answered (the rest at the next step); nothing is skipped.
func TestDepositScanReadsFewerBlocksWhenTheAnswerIsTooLarge(t *testing.T) {
	t.Parallel()
	// most: the blocks a batch answers, and the newest block, read before them
	for _, limit := range []struct{ answered, accepted, most int }{{3, 100, 4}, {100, 4, 100}} {
		e := newEnv(t)
		ctx := context.Background()
		s := chain.DepositScanner{RPC: sizeLimited(t, e.url, limit.answered, limit.accepted)}
		head, err := s.Head(ctx)
		e.ok(err)
		watched := e.elsewhere
		e.mined(e.payETH(e.stranger, watched, eth(1)))
		for range 8 {
			e.commit()
		}
		e.mined(e.payETH(e.stranger, watched, eth(2)))
		watch := watching(func(a string) bool { return common.HexToAddress(a) == watched })
		var found int
		for from := head + 1; from <= head+10; {
			scan, err := s.Scan(ctx, from, 100, watch)
			if err != nil {
				t.Fatalf("%+v: a scan from block %d: %v", limit, from, err)
			}
			if scan.To < from || scan.To-from+1 > uint64(limit.most) {
				t.Fatalf("%+v: a scan from block %d read up to %d", limit, from, scan.To)
			}
			for n := from; n <= scan.To; n++ {
				if _, ok := scan.Hashes[n]; !ok {
					t.Fatalf("%+v: block %d skipped (scan %d-%d)", limit, n, from, scan.To)
				}
			}
			found += len(scan.Transfers)
			from = scan.To + 1
		}
		if found != 2 {
			t.Fatalf("%+v: %d ETH payments found, want 2", limit, found)
		}
	}
}
