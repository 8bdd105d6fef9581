package chain_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
)

// receiptNode is a JSON-RPC node that answers eth_getTransactionReceipt with receipt (any other
// method: an error).
func receiptNode(t *testing.T, receipt map[string]any) *chain.RPC {
	t.Helper()
	return rpcServedBy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if req.Method == "eth_getTransactionReceipt" {
			out["result"] = receipt
		} else {
			out["error"] = map[string]any{"code": -32601, "message": "method not found"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
}

func nodeReceipt(txHash common.Hash, block any) map[string]any {
	return map[string]any{"transactionHash": txHash, "blockNumber": block, "blockHash": nil, "status": "0x1",
		"cumulativeGasUsed": "0x5208", "gasUsed": "0x5208", "logs": []any{}, "transactionIndex": "0x0",
		"logsBloom": "0x" + strings.Repeat("00", 256), "type": "0x2", "contractAddress": nil}
}

// Stop 62: some nodes answer the receipt of a pending transaction with blockNumber null. The
// submitted hash's check (the hint follower) and the refund verifier read its block number
// without looking, and panicked: a worker's panic ends serve. Such a receipt is now a transaction
// not mined yet; and the receipt of another transaction than the one asked is an error, never
// taken for it.
func TestANodesPendingReceiptIsNotMined(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := common.HexToHash("0x" + strings.Repeat("12", 32))
	c := receiptNode(t, nodeReceipt(h, nil))
	got, err := chain.NewTransactionCredits(c, nil).Transaction(ctx, h.Hex())
	if err != nil || got.Mined {
		t.Fatalf("a pending receipt checked as a hint's: %+v, %v; want not mined", got, err)
	}
	if _, found, err := (chain.RefundReader{RPC: c}).Transaction(ctx, h.Hex()); err != nil || found {
		t.Fatalf("a pending receipt read as a refund's: found %v, %v; want not found", found, err)
	}

	other := receiptNode(t, nodeReceipt(common.HexToHash("0x"+strings.Repeat("34", 32)), "0x5"))
	if got, err := chain.NewTransactionCredits(other, nil).Transaction(ctx, h.Hex()); err == nil {
		t.Fatalf("the receipt of another transaction taken for %s: %+v", h.Hex(), got)
	}
	if _, _, err := (chain.RefundReader{RPC: other}).Transaction(ctx, h.Hex()); err == nil {
		t.Fatal("the receipt of another transaction taken for a refund's")
	}
}

// batchReceiptNode answers every eth_getTransactionReceipt of a JSON-RPC batch with receipt.
func batchReceiptNode(t *testing.T, receipt map[string]any) *chain.RPC {
	t.Helper()
	return rpcServedBy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqs []struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&reqs); err != nil {
			http.Error(w, "a batch only", http.StatusBadRequest)
			return
		}
		out := make([]map[string]any, len(reqs))
		for i, q := range reqs {
			out[i] = map[string]any{"jsonrpc": "2.0", "id": q.ID}
			if q.Method == "eth_getTransactionReceipt" {
				out[i]["result"] = receipt
			} else {
				out[i]["error"] = map[string]any{"code": -32601, "message": "method not found"}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
}

// Stop 63: the batched receipts were taken as the node answered them, while the single lookup
// refuses a receipt of another transaction (stop 62): a node answering a successful receipt of
// another transaction for a charge's (ChargeOperator.Outcomes) made it a success, and a payment
// hint's block another transaction's (DepositScanner.Transactions). Such a batch is an error now.
func TestANodesReceiptOfAnotherTransactionInABatchIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	asked := common.HexToHash("0x" + strings.Repeat("12", 32))
	c := batchReceiptNode(t, nodeReceipt(common.HexToHash("0x"+strings.Repeat("34", 32)), "0x5"))
	if got, err := c.TransactionReceipts(ctx, []common.Hash{asked}); err == nil {
		t.Fatalf("the receipt of %s taken for %s", got[0].TxHash.Hex(), asked.Hex())
	}
	if got, err := (chain.DepositScanner{RPC: c}).Transactions(ctx, []string{asked.Hex()}); err == nil {
		t.Fatalf("a hint's transaction read from another's receipt: %+v", got[0])
	}
}
