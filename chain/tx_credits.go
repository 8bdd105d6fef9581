package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/domain/onchain"
)

// TransactionCredits is the submitted-hash check's port (commands.ChainTransactions) over a
// Client: what a transaction moved, in the configured tokens (CHAIN_TOKENS) and in ETH.
type TransactionCredits struct {
	c      Client
	tokens []Token
}

// NewTransactionCredits reads transactions on c; only tokens count as ERC-20 transfers.
func NewTransactionCredits(c Client, tokens []Token) *TransactionCredits {
	return &TransactionCredits{c: c, tokens: tokens}
}

// Transaction reads the receipt of hash: not mined (unknown) is Mined false; a reverted one moved
// nothing. A successful one lists every Transfer log of a configured token and the transaction's
// own ETH value (LogIndex -1). ETH moved by a contract on the sender's behalf (an internal call)
// is not listed: the deposit follower finds it by the deposit's balance. Errors: RPC errors.
func (t *TransactionCredits) Transaction(ctx context.Context, hash string) (onchain.MinedTransaction, error) {
	h := common.HexToHash(hash)
	r, err := t.c.TransactionReceipt(ctx, h)
	if errors.Is(err, ErrNotFound) {
		return onchain.MinedTransaction{}, nil
	}
	if err != nil {
		return onchain.MinedTransaction{}, fmt.Errorf("chain: receipt of %s: %w", hash, err)
	}
	if mined, err := minedReceipt(r, h); !mined || err != nil {
		return onchain.MinedTransaction{}, err
	}
	out := onchain.MinedTransaction{Mined: true, Reverted: r.Status != types.ReceiptStatusSuccessful, BlockNumber: r.BlockNumber.Uint64()}
	if out.Reverted {
		return out, nil
	}
	out.Credits = t.tokenCredits(derefLogs(r.Logs))
	tx, err := t.c.TransactionByHash(ctx, h)
	if err != nil {
		return onchain.MinedTransaction{}, fmt.Errorf("chain: transaction %s: %w", hash, err)
	}
	if to := tx.Tx.To(); to != nil && tx.Tx.Value().Sign() > 0 {
		out.Credits = append(out.Credits, onchain.ChainCredit{To: strings.ToLower(to.Hex()), Token: "ETH", LogIndex: -1,
			AmountUnits: tx.Tx.Value().String(), From: strings.ToLower(tx.From.Hex())})
	}
	return out, nil
}

// ETHReceivedIn reports whether address's ETH balance at block is greater than at the block
// before (commands.ETHArrivals): ETH a contract sent it there, as a smart-contract wallet pays
// (an ERC-4337 or Safe wallet's internal call), shows in no transaction's fields. Two balance
// reads. Errors: RPC errors.
func (t *TransactionCredits) ETHReceivedIn(ctx context.Context, block uint64, address string) (bool, error) {
	if block == 0 {
		return false, nil
	}
	a := common.HexToAddress(address)
	after, err := t.c.BalanceAt(ctx, a, new(big.Int).SetUint64(block))
	if err != nil {
		return false, fmt.Errorf("chain: balance of %s at block %d: %w", address, block, err)
	}
	if after.Sign() == 0 {
		return false, nil
	}
	before, err := t.c.BalanceAt(ctx, a, new(big.Int).SetUint64(block-1))
	if err != nil {
		return false, fmt.Errorf("chain: balance of %s at block %d: %w", address, block-1, err)
	}
	return after.Cmp(before) > 0, nil
}

// minedReceipt judges a node's receipt of the transaction hash: false for one without a block
// (some nodes answer the receipt of a pending transaction with blockNumber null: not mined yet),
// an error for the receipt of another transaction (never believed for this one).
func minedReceipt(r *types.Receipt, hash common.Hash) (bool, error) {
	if r.TxHash != hash {
		return false, fmt.Errorf("chain: receipt of %s: the node answered the receipt of %s", hash.Hex(), r.TxHash.Hex())
	}
	return r.BlockNumber != nil && r.BlockHash != (common.Hash{}), nil
}

// tokenCredits are the Transfer logs of configured tokens among logs.
func (t *TransactionCredits) tokenCredits(logs []types.Log) []onchain.ChainCredit {
	var out []onchain.ChainCredit
	for _, l := range logs {
		if l.Removed || len(l.Topics) != 3 || l.Topics[0] != TransferTopic || len(l.Data) != 32 {
			continue
		}
		for _, tok := range t.tokens {
			if tok.Address != l.Address {
				continue
			}
			from, to := common.BytesToAddress(l.Topics[1].Bytes()), common.BytesToAddress(l.Topics[2].Bytes())
			out = append(out, onchain.ChainCredit{To: strings.ToLower(to.Hex()), Token: tok.Symbol, LogIndex: int(l.Index),
				AmountUnits: new(big.Int).SetBytes(l.Data).String(), From: strings.ToLower(from.Hex())})
		}
	}
	return out
}

// TransferTopic is topic 0 of the ERC-20 Transfer(address indexed from, address indexed to,
// uint256 value) event.
var TransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

func derefLogs(logs []*types.Log) []types.Log {
	out := make([]types.Log, len(logs))
	for i, l := range logs {
		out[i] = *l
	}
	return out
}
