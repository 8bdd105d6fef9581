package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/settlement"
)

// DepositScanner is the chain as the deposit detector reads it (settlement.DepositChain), over a
// JSON-RPC connection: per block range ONE eth_getLogs for the Transfer logs of every configured
// token, whatever the number of deposits (the recipients are matched in memory), one batch of the
// range's blocks with their transactions (ETH), and, only when some ETH went to a deposit, one
// batch of those transactions' receipts (a reverted transaction moves no ETH).
type DepositScanner struct {
	RPC    *RPC
	Tokens []Token // CHAIN_TOKENS
}

var _ settlement.DepositChain = DepositScanner{}

// Head implements settlement.DepositChain.
func (s DepositScanner) Head(ctx context.Context) (uint64, error) { return s.RPC.BlockNumber(ctx) }

// Scan implements settlement.DepositChain.
func (s DepositScanner) Scan(ctx context.Context, from, to uint64, watched func(string) bool) (settlement.DepositScan, error) {
	out := settlement.DepositScan{Hashes: map[uint64]string{}}
	if to < from {
		return out, nil
	}
	tokens, err := s.tokenTransfers(ctx, from, to, watched)
	if err != nil {
		return out, err
	}
	blocks, err := s.RPC.blocksWithTransactions(ctx, from, to)
	if err != nil {
		return out, err
	}
	for _, b := range blocks {
		out.Hashes[uint64(b.Number)] = strings.ToLower(b.Hash.Hex())
	}
	out.Parent = strings.ToLower(blocks[0].ParentHash.Hex())
	eth, err := s.ethTransfers(ctx, blocks, watched)
	if err != nil {
		return out, err
	}
	out.Transfers = append(tokens, eth...)
	return out, nil
}

// tokenTransfers is the Transfer logs of the configured tokens over [from, to] whose recipient is
// watched: one eth_getLogs (per MaxLogRange blocks), no filter on the recipient.
func (s DepositScanner) tokenTransfers(ctx context.Context, from, to uint64, watched func(string) bool) ([]settlement.DepositTransfer, error) {
	if len(s.Tokens) == 0 {
		return nil, nil
	}
	addrs := make([]common.Address, len(s.Tokens))
	byAddr := make(map[common.Address]Token, len(s.Tokens))
	for i, t := range s.Tokens {
		addrs[i], byAddr[t.Address] = t.Address, t
	}
	logs, err := s.RPC.FilterLogs(ctx, from, to, addrs, [][]common.Hash{{TransferTopic}})
	if err != nil {
		return nil, err
	}
	var out []settlement.DepositTransfer
	for _, l := range logs {
		if l.Removed || len(l.Topics) != 3 || len(l.Data) != 32 {
			continue // not an ERC-20 Transfer (an ERC-721 one has 4 topics)
		}
		recipient := strings.ToLower(common.BytesToAddress(l.Topics[2].Bytes()).Hex())
		if !watched(recipient) {
			continue
		}
		t := byAddr[l.Address]
		out = append(out, settlement.DepositTransfer{Deposit: recipient, TransactionHash: strings.ToLower(l.TxHash.Hex()), LogIndex: int(l.Index),
			BlockNumber: l.BlockNumber, BlockHash: strings.ToLower(l.BlockHash.Hex()), Sender: strings.ToLower(common.BytesToAddress(l.Topics[1].Bytes()).Hex()),
			Token: t.Symbol, Decimals: t.Decimals, AmountUnits: new(big.Int).SetBytes(l.Data).String()})
	}
	return out, nil
}

// ethTransfers is the transactions of blocks that send ETH to a watched address and succeeded
// (one batch of receipts, only for those).
func (s DepositScanner) ethTransfers(ctx context.Context, blocks []scannedBlock, watched func(string) bool) ([]settlement.DepositTransfer, error) {
	var out []settlement.DepositTransfer
	var hashes []common.Hash
	for _, b := range blocks {
		for _, tx := range b.Transactions {
			if tx.To == nil || tx.Value == nil || tx.Value.ToInt().Sign() <= 0 {
				continue
			}
			to := strings.ToLower(tx.To.Hex())
			if !watched(to) {
				continue
			}
			out = append(out, settlement.DepositTransfer{Deposit: to, TransactionHash: strings.ToLower(tx.Hash.Hex()), LogIndex: -1,
				BlockNumber: uint64(b.Number), BlockHash: strings.ToLower(b.Hash.Hex()), Sender: strings.ToLower(tx.From.Hex()),
				Token: "ETH", Decimals: 18, AmountUnits: tx.Value.ToInt().String()})
			hashes = append(hashes, tx.Hash)
		}
	}
	if len(hashes) == 0 {
		return nil, nil
	}
	receipts, err := s.RPC.TransactionReceipts(ctx, hashes)
	if err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, t := range out {
		if r := receipts[i]; r != nil && r.Status == types.ReceiptStatusSuccessful && strings.EqualFold(r.BlockHash.Hex(), t.BlockHash) {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// BlockHashes implements settlement.DepositChain: one batch of headers.
func (s DepositScanner) BlockHashes(ctx context.Context, numbers []uint64) (map[uint64]string, error) {
	headers, err := s.RPC.HeadersByNumber(ctx, numbers)
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]string, len(numbers))
	for i, h := range headers {
		if h != nil {
			out[numbers[i]] = strings.ToLower(h.Hash().Hex())
		}
	}
	return out, nil
}

// Balances implements settlement.DepositChain: one batch of eth_getBalance.
func (s DepositScanner) Balances(ctx context.Context, addresses []string, number uint64) ([]*big.Int, error) {
	raw := make([]*hexutil.Big, len(addresses))
	err := s.RPC.batch(ctx, len(addresses), func(i int) rpc.BatchElem {
		return rpc.BatchElem{Method: "eth_getBalance", Args: []any{common.HexToAddress(addresses[i]), hexutil.EncodeUint64(number)}, Result: &raw[i]}
	})
	if err != nil {
		return nil, err
	}
	out := make([]*big.Int, len(raw))
	for i, b := range raw {
		if b != nil {
			out[i] = b.ToInt()
		}
	}
	return out, nil
}

// Transactions implements settlement.DepositChain: one batch of eth_getTransactionReceipt.
func (s DepositScanner) Transactions(ctx context.Context, hashes []string) ([]*settlement.MinedTx, error) {
	hs := make([]common.Hash, len(hashes))
	for i, h := range hashes {
		hs[i] = common.HexToHash(h)
	}
	receipts, err := s.RPC.TransactionReceipts(ctx, hs)
	if err != nil {
		return nil, err
	}
	out := make([]*settlement.MinedTx, len(receipts))
	for i, r := range receipts {
		if r != nil && r.BlockNumber != nil {
			out[i] = &settlement.MinedTx{Reverted: r.Status != types.ReceiptStatusSuccessful, BlockNumber: r.BlockNumber.Uint64(),
				BlockHash: strings.ToLower(r.BlockHash.Hex())}
		}
	}
	return out, nil
}

// scannedBlock is eth_getBlockByNumber's answer with full transactions, only the fields read.
// The sender ("from") is the node's: it only names the buyer of an ETH payment; the payment
// itself is judged by where the value went and the receipt's status.
type scannedBlock struct {
	Number       hexutil.Uint64 `json:"number"`
	Hash         common.Hash    `json:"hash"`
	ParentHash   common.Hash    `json:"parentHash"`
	Transactions []struct {
		Hash  common.Hash     `json:"hash"`
		From  common.Address  `json:"from"`
		To    *common.Address `json:"to"`
		Value *hexutil.Big    `json:"value"`
	} `json:"transactions"`
}

// blocksWithTransactions reads the blocks [from, to] with their transactions, in batches.
func (c *RPC) blocksWithTransactions(ctx context.Context, from, to uint64) ([]scannedBlock, error) {
	n := int(to - from + 1)
	raw := make([]*scannedBlock, n)
	err := c.batch(ctx, n, func(i int) rpc.BatchElem {
		return rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(from + uint64(i)), true}, Result: &raw[i]}
	})
	if err != nil {
		return nil, err
	}
	out := make([]scannedBlock, 0, n)
	for i, b := range raw {
		if b == nil {
			return nil, fmt.Errorf("eth_getBlockByNumber %d: no such block", from+uint64(i))
		}
		out = append(out, *b)
	}
	return out, nil
}
