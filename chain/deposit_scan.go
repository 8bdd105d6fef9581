package chain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/domain/onchain"
)

// DepositScanner is the chain as the deposit detector reads it (settlement.DepositChain), over a
// JSON-RPC connection. A step costs a constant number of JSON-RPC requests, whatever the number
// of open deposits: the newest block with its transactions (it tells the head and is, on a
// chain followed block by block, the block to read), ONE eth_getLogs for the Transfer logs of
// every contract (the recipients are matched in memory), the other blocks of the range
// when more than one is new (one request each), and, only when some ETH went to a deposit, one
// batch of those transactions' receipts (a reverted transaction moves no ETH).
type DepositScanner struct {
	RPC    *RPC
	Tokens []Token // CHAIN_TOKENS
}

// Head implements settlement.DepositChain.
func (s DepositScanner) Head(ctx context.Context) (uint64, error) { return s.RPC.BlockNumber(ctx) }

// Genesis implements settlement.DepositChain: the hash of block 0, which names the chain.
func (s DepositScanner) Genesis(ctx context.Context) (string, error) {
	h, err := s.RPC.HeadersByNumber(ctx, []uint64{0})
	if err != nil {
		return "", fmt.Errorf("chain: genesis block: %w", err)
	}
	if h[0] == nil {
		return "", errors.New("chain: the node has no genesis block")
	}
	return strings.ToLower(h[0].Hash().Hex()), nil
}

// Scan implements settlement.DepositChain: watch is asked for the addresses after the newest block
// is read, and only when there are blocks to read.
func (s DepositScanner) Scan(ctx context.Context, from, most uint64, watch onchain.DepositWatch) (onchain.DepositScan, error) {
	out := onchain.DepositScan{Hashes: map[uint64]string{}}
	newest, err := s.RPC.blockWithTransactions(ctx, "latest")
	if err != nil {
		return out, err
	}
	out.Head = uint64(newest.Number)
	if out.Head < from || most == 0 {
		return out, nil
	}
	watched, err := watch(ctx)
	if err != nil {
		return out, err
	}
	to := min(out.Head, from+most-1)
	blocks, err := s.RPC.blocksWithTransactions(ctx, from, to, newest)
	if err != nil {
		return out, err
	}
	to = uint64(blocks[len(blocks)-1].Number) // fewer when the node refused the rest as too large
	for _, b := range blocks {
		out.Hashes[uint64(b.Number)] = strings.ToLower(b.Hash.Hex())
	}
	out.To, out.Parent = to, strings.ToLower(blocks[0].ParentHash.Hex())
	tokens, err := s.tokenTransfers(ctx, blocks, watched)
	if err != nil {
		return out, err
	}
	eth, err := s.ethTransfers(ctx, blocks, watched)
	if err != nil {
		return out, err
	}
	out.Transfers = append(tokens, eth...)
	return out, nil
}

// errScanMoved is a scan whose blocks changed while it read them (a reorg between two requests):
// the step reads them again.
var errScanMoved = errors.New("chain: the blocks changed during the scan (reorg); reading again")

// tokenTransfers is the ERC-20 Transfer logs in blocks whose recipient is watched: one eth_getLogs
// (per MaxLogRange blocks; by block hash for a single block, so the logs are those of the block
// read) by the Transfer topic alone, of every contract, the recipients matched in memory. A log
// of a configured token is a transfer of it; a log of another contract is reported with Contract
// set and no Token (receipt.DepositUnknownToken; docs/decisions.md, issue 41: a filter by
// recipient would take one request per 1,000 deposits, go-ethereum's limit of a topic's
// alternatives). A log of another block than the one read at its number is a reorg during the
// scan: errScanMoved.
func (s DepositScanner) tokenTransfers(ctx context.Context, blocks []scannedBlock, watched func(string) bool) ([]onchain.DepositTransfer, error) {
	byAddr := s.tokensByAddress()
	topics := [][]common.Hash{{TransferTopic}}
	var logs []types.Log
	var err error
	if len(blocks) == 1 {
		logs, err = s.RPC.FilterLogsAt(ctx, blocks[0].Hash, nil, topics)
	} else {
		logs, err = s.RPC.FilterLogs(ctx, uint64(blocks[0].Number), uint64(blocks[len(blocks)-1].Number), nil, topics)
	}
	if err != nil {
		return nil, err
	}
	first := uint64(blocks[0].Number)
	var out []onchain.DepositTransfer
	for _, l := range logs {
		if l.BlockNumber < first || l.BlockNumber-first >= uint64(len(blocks)) || l.BlockHash != blocks[l.BlockNumber-first].Hash {
			return nil, fmt.Errorf("%w: log of block %d %s", errScanMoved, l.BlockNumber, l.BlockHash)
		}
		if t, ok := transferOf(l, byAddr); ok && watched(t.Deposit) {
			t.BlockTime = blockTime(uint64(blocks[l.BlockNumber-first].Timestamp))
			out = append(out, t)
		}
	}
	return out, nil
}

// transferOf is the ERC-20 Transfer log l as a transfer to its recipient: of a configured token
// (byAddr), else with Contract set; ok is false for a log that is no ERC-20 Transfer.
func transferOf(l types.Log, byAddr map[common.Address]Token) (onchain.DepositTransfer, bool) {
	if l.Removed || len(l.Topics) != 3 || len(l.Data) != 32 {
		return onchain.DepositTransfer{}, false // not an ERC-20 Transfer (an ERC-721 one has 4 topics)
	}
	t := onchain.DepositTransfer{Deposit: strings.ToLower(common.BytesToAddress(l.Topics[2].Bytes()).Hex()),
		TransactionHash: strings.ToLower(l.TxHash.Hex()), LogIndex: int(l.Index), BlockNumber: l.BlockNumber,
		BlockHash: strings.ToLower(l.BlockHash.Hex()), Sender: strings.ToLower(common.BytesToAddress(l.Topics[1].Bytes()).Hex()),
		AmountUnits: new(big.Int).SetBytes(l.Data).String(), BlockTime: blockTime(l.BlockTimestamp)}
	if tok, ok := byAddr[l.Address]; ok {
		t.Token, t.Decimals = tok.Symbol, tok.Decimals
	} else {
		t.Contract = strings.ToLower(l.Address.Hex())
	}
	return t, true
}

// tokensByAddress is the configured tokens by contract address.
func (s DepositScanner) tokensByAddress() map[common.Address]Token {
	byAddr := make(map[common.Address]Token, len(s.Tokens))
	for _, t := range s.Tokens {
		byAddr[t.Address] = t
	}
	return byAddr
}

// topicAlternatives is how many recipients one look-back eth_getLogs names: go-ethereum's limit
// of a topic's alternatives.
const topicAlternatives = 1000

// TransfersTo implements settlement.DepositChain: the ERC-20 Transfer logs of blocks [from, to]
// whose recipient is one of addresses, by recipient topic (one eth_getLogs per 1,000 addresses
// and MaxLogRange blocks). The deposit detector's look-back for deposits it began watching late.
func (s DepositScanner) TransfersTo(ctx context.Context, from, to uint64, addresses []string) ([]onchain.DepositTransfer, error) {
	byAddr := s.tokensByAddress()
	var out []onchain.DepositTransfer
	for lo := 0; lo < len(addresses); lo += topicAlternatives {
		var recipients []common.Hash
		for _, a := range addresses[lo:min(lo+topicAlternatives, len(addresses))] {
			recipients = append(recipients, common.BytesToHash(common.HexToAddress(a).Bytes()))
		}
		logs, err := s.RPC.FilterLogs(ctx, from, to, nil, [][]common.Hash{{TransferTopic}, nil, recipients})
		if err != nil {
			return nil, fmt.Errorf("chain: transfers to %d deposits in blocks %d-%d: %w", len(recipients), from, to, err)
		}
		for _, l := range logs {
			if t, ok := transferOf(l, byAddr); ok {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// blockTime is a block's timestamp (seconds) in Unix ms; 0 stays 0 (a log of a node that does not
// give blockTimestamp, which the look-back's eth_getLogs may be).
func blockTime(seconds uint64) int64 {
	if seconds == 0 || seconds > math.MaxInt64/1000 {
		return 0
	}
	return int64(seconds) * 1000
}

// ethTransfers is the transactions of blocks that send ETH to a watched address and succeeded
// (one batch of receipts, only for those).
func (s DepositScanner) ethTransfers(ctx context.Context, blocks []scannedBlock, watched func(string) bool) ([]onchain.DepositTransfer, error) {
	var out []onchain.DepositTransfer
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
			out = append(out, onchain.DepositTransfer{Deposit: to, TransactionHash: strings.ToLower(tx.Hash.Hex()), LogIndex: -1,
				BlockNumber: uint64(b.Number), BlockHash: strings.ToLower(b.Hash.Hex()), Sender: strings.ToLower(tx.From.Hex()),
				Token: "ETH", Decimals: 18, AmountUnits: tx.Value.ToInt().String(), BlockTime: blockTime(uint64(b.Timestamp)), TxIndex: txIndex(tx.Index)})
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
	// A transaction of a block read has a receipt in that block: none (a node behind a load
	// balancer that has not indexed it yet) or one of another block (a reorg between the
	// requests) is the chain changing under the scan, read again, never a transfer skipped.
	kept := out[:0]
	for i, t := range out {
		r := receipts[i]
		if r == nil || r.TxHash != hashes[i] || !strings.EqualFold(r.BlockHash.Hex(), t.BlockHash) {
			return nil, fmt.Errorf("%w: the receipt of transaction %s of block %d %s is not of that block", errScanMoved, t.TransactionHash, t.BlockNumber, t.BlockHash)
		}
		if r.Status == types.ReceiptStatusSuccessful {
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

// Balances implements settlement.DepositChain: one eth_call per BalancesPerCall addresses, at the
// block of hash block.
func (s DepositScanner) Balances(ctx context.Context, addresses []string, block string) ([]*big.Int, error) {
	addrs := make([]common.Address, len(addresses))
	for i, a := range addresses {
		addrs[i] = common.HexToAddress(a)
	}
	return s.RPC.BalancesAt(ctx, addrs, common.HexToHash(block))
}

// Transactions implements settlement.DepositChain: one batch of eth_getTransactionReceipt.
func (s DepositScanner) Transactions(ctx context.Context, hashes []string) ([]*onchain.MinedTx, error) {
	hs := make([]common.Hash, len(hashes))
	for i, h := range hashes {
		hs[i] = common.HexToHash(h)
	}
	receipts, err := s.RPC.TransactionReceipts(ctx, hs)
	if err != nil {
		return nil, err
	}
	out := make([]*onchain.MinedTx, len(receipts))
	for i, r := range receipts {
		if r != nil && r.BlockNumber != nil {
			out[i] = &onchain.MinedTx{Reverted: r.Status != types.ReceiptStatusSuccessful, BlockNumber: r.BlockNumber.Uint64(),
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
	Timestamp    hexutil.Uint64 `json:"timestamp"`
	Transactions []struct {
		Hash  common.Hash     `json:"hash"`
		From  common.Address  `json:"from"`
		To    *common.Address `json:"to"`
		Value *hexutil.Big    `json:"value"`
		Index *hexutil.Uint64 `json:"transactionIndex"`
	} `json:"transactions"`
}

// blockWithTransactions reads one block (a number in hex, or "latest") with its transactions.
func (c *RPC) blockWithTransactions(ctx context.Context, number string) (scannedBlock, error) {
	if err := c.sameChain(ctx); err != nil {
		return scannedBlock{}, err
	}
	var b *scannedBlock
	c.count(1)
	if err := c.rpc.CallContext(ctx, &b, "eth_getBlockByNumber", number, true); err != nil {
		return scannedBlock{}, fmt.Errorf("chain: block %s: %w", number, err)
	}
	if b == nil {
		return scannedBlock{}, fmt.Errorf("chain: block %s: no such block", number)
	}
	return *b, nil
}

// blocksWithTransactions reads the blocks [from, to] with their transactions, in batches, newest
// (the block to, already read) excepted; each must be the parent of the next, else the chain
// changed between the requests (errScanMoved). A node that refuses an answer as too large (geth
// answers "response too large" past 25 MB of a batch; a provider may refuse a batch's size) is
// asked smaller batches, and when even those leave blocks unanswered, the blocks answered are
// the scan's range: fewer blocks a step, read on the next, rather than the same refused range
// for ever. A first block refused alone is an error.
func (c *RPC) blocksWithTransactions(ctx context.Context, from, to uint64, newest scannedBlock) ([]scannedBlock, error) {
	ask := int(to - from + 1)
	if uint64(newest.Number) == to {
		ask--
	}
	out := make([]scannedBlock, 0, ask+1)
	for size := MaxBatch; len(out) < ask; {
		lo := len(out)
		raw := make([]*scannedBlock, min(size, ask-lo))
		elems := make([]rpc.BatchElem, len(raw))
		for i := range elems {
			elems[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(from + uint64(lo+i)), true}, Result: &raw[i]}
		}
		c.count(len(elems))
		if err := c.rpc.BatchCallContext(ctx, elems); err != nil {
			if len(elems) > 1 && ctx.Err() == nil && tooLarge(err) {
				size = len(elems) / 2
				continue
			}
			if len(out) > 0 && ctx.Err() == nil && tooLarge(err) {
				return chained(out)
			}
			return nil, fmt.Errorf("chain: blocks %d-%d: %w", from+uint64(lo), from+uint64(lo+len(elems)-1), err)
		}
		for i, e := range elems {
			n := from + uint64(lo+i)
			switch {
			case e.Error != nil && len(out) > 0 && tooLarge(e.Error):
				return chained(out) // the blocks answered: the rest at the next step
			case e.Error != nil:
				return nil, fmt.Errorf("eth_getBlockByNumber %d: %w", n, e.Error)
			case raw[i] == nil:
				return nil, fmt.Errorf("eth_getBlockByNumber %d: no such block", n)
			case uint64(raw[i].Number) != n:
				return nil, fmt.Errorf("eth_getBlockByNumber %d: the node answered block %d", n, raw[i].Number)
			}
			out = append(out, *raw[i])
		}
	}
	if uint64(newest.Number) == to {
		out = append(out, newest)
	}
	return chained(out)
}

// chained is blocks when each is the parent of the next; errScanMoved otherwise.
func chained(blocks []scannedBlock) ([]scannedBlock, error) {
	for i := 1; i < len(blocks); i++ {
		if blocks[i].ParentHash != blocks[i-1].Hash {
			return nil, fmt.Errorf("%w: block %d is not the child of the block %d read", errScanMoved, blocks[i].Number, blocks[i-1].Number)
		}
	}
	return blocks, nil
}

// FilterLogsAt is eth_getLogs of one block by its hash (EIP-234): the logs of exactly that block,
// even if another has replaced it at its number since.
func (c *RPC) FilterLogsAt(ctx context.Context, block common.Hash, addresses []common.Address, topics [][]common.Hash) ([]types.Log, error) {
	if err := c.sameChain(ctx); err != nil {
		return nil, err
	}
	c.count(1)
	logs, err := c.eth.FilterLogs(ctx, ethereum.FilterQuery{BlockHash: &block, Addresses: addresses, Topics: topics})
	if err != nil {
		return nil, fmt.Errorf("chain: logs of block %s: %w", block, err)
	}
	kept := logs[:0] // only those asked for (asked): of that block, each once
	for _, l := range asked(logs, 0, math.MaxUint64, addresses, topics) {
		if l.BlockHash == block {
			kept = append(kept, l)
		}
	}
	return kept, nil
}

// txIndex is a transaction's index in its block as the node gave it (nil: it did not).
func txIndex(i *hexutil.Uint64) *int {
	if i == nil {
		return nil
	}
	n := int(*i)
	return &n
}
