package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/receipt"
)

// RefundReader is settlement.RefundChain over a JSON-RPC connection: a refund's transaction is
// read by its receipt (status, block, logs) and, for its ETH value, the transaction itself.
type RefundReader struct {
	RPC    *RPC
	Tokens []Token // CHAIN_TOKENS: their Transfer logs carry the symbol; others only the contract
}

// Head implements settlement.RefundChain.
func (r RefundReader) Head(ctx context.Context) (uint64, error) { return r.RPC.BlockNumber(ctx) }

// BlockHashes implements settlement.RefundChain: one batch of headers.
func (r RefundReader) BlockHashes(ctx context.Context, numbers []uint64) (map[uint64]string, error) {
	return DepositScanner{RPC: r.RPC}.BlockHashes(ctx, numbers)
}

// Transaction implements settlement.RefundChain. A transaction not mined (or unknown) is not
// found; any other failure is an error, and the verifier asks again later.
func (r RefundReader) Transaction(ctx context.Context, hash string) (onchain.RefundTx, bool, error) {
	h := common.HexToHash(hash)
	rc, err := r.RPC.TransactionReceipt(ctx, h)
	if errors.Is(err, ErrNotFound) {
		return onchain.RefundTx{}, false, nil
	}
	if err != nil {
		return onchain.RefundTx{}, false, fmt.Errorf("chain: receipt of refund %s: %w", hash, err)
	}
	if mined, err := minedReceipt(rc, h); !mined || err != nil {
		return onchain.RefundTx{}, false, err
	}
	out := onchain.RefundTx{BlockNumber: rc.BlockNumber.Uint64(), BlockHash: strings.ToLower(rc.BlockHash.Hex()),
		Succeeded: rc.Status == types.ReceiptStatusSuccessful}
	if !out.Succeeded {
		return out, true, nil
	}
	out.Transfers = r.tokenTransfers(rc.Logs)
	tx, err := r.RPC.TransactionByHash(ctx, h)
	if err != nil { // mined a moment ago yet unknown now: a reorg or a lagging node
		return onchain.RefundTx{}, false, fmt.Errorf("chain: refund transaction %s: %w", hash, err)
	}
	if to := tx.Tx.To(); to != nil && tx.Tx.Value().Sign() > 0 {
		out.Transfers = append(out.Transfers, receipt.ChainTransfer{Token: "ETH", Decimals: 18, From: lower(tx.From), To: lower(*to),
			AmountUnits: tx.Tx.Value().String()})
	}
	return out, true, nil
}

// Pending implements settlement.RefundChain: the node knows the transaction and it is not mined.
func (r RefundReader) Pending(ctx context.Context, hash string) (bool, error) {
	tx, err := r.RPC.TransactionByHash(ctx, common.HexToHash(hash))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("chain: refund transaction %s: %w", hash, err)
	}
	return tx.Pending, nil
}

// tokenTransfers are the Transfer logs among logs: of a configured token with its symbol and
// decimals, of any other contract with the contract only (a refund of an unconfigured token's
// transfer counts those, receipt.JudgeRefund).
func (r RefundReader) tokenTransfers(logs []*types.Log) []receipt.ChainTransfer {
	var out []receipt.ChainTransfer
	for _, l := range logs {
		from, to, value, ok := decodeTransfer(*l)
		if !ok || l.Removed {
			continue
		}
		t := receipt.ChainTransfer{Contract: lower(l.Address), From: lower(from), To: lower(to), AmountUnits: value.String()}
		for _, c := range r.Tokens {
			if c.Address == l.Address {
				t.Token, t.Decimals = c.Symbol, c.Decimals
			}
		}
		out = append(out, t)
	}
	return out
}

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

// decodeTransfer reads an ERC-20 Transfer log (ok false for any other log).
func decodeTransfer(l types.Log) (from, to common.Address, value *big.Int, ok bool) {
	if len(l.Topics) != 3 || l.Topics[0] != TransferTopic || len(l.Data) != 32 {
		return from, to, nil, false
	}
	from = common.BytesToAddress(l.Topics[1].Bytes())
	to = common.BytesToAddress(l.Topics[2].Bytes())
	return from, to, new(big.Int).SetBytes(l.Data), true
}
