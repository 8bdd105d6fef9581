package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Failure codes of a wallet payment (DESIGN 8, category blockchain in domain/failure).
const (
	CodeTxReverted       = "PORTAL_CHAIN_TX_REVERTED"
	CodeWalletMismatch   = "PORTAL_CHAIN_WALLET_MISMATCH"
	CodeSlippageExceeded = "PORTAL_CHAIN_SLIPPAGE_EXCEEDED"
)

// TransferTopic is topic 0 of the ERC-20 Transfer(address indexed from, address indexed to,
// uint256 value) event.
var TransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// Status is where a verification stands.
type Status int

const (
	// Waiting: not mined yet, or mined but not yet Confirmations deep. The payment stays pending.
	Waiting Status = iota
	// Paid: deep enough and every rule holds.
	Paid
	// Failed: deep enough and a rule is broken; FailureCode says which.
	Failed
	// Reorged: decided Paid, then its block left the canonical chain (a reorg deeper than the
	// confirmation depth) and the transaction is nowhere on the chain now. Reported once by the
	// Follower's audit (AuditBlocks); BlockNumber and BlockHash are the replaced block.
	Reorged
)

func (s Status) String() string {
	switch s {
	case Waiting:
		return "waiting"
	case Paid:
		return "paid"
	case Failed:
		return "failed"
	case Reorged:
		return "reorged"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Expectation is what one submitted wallet payment must show on chain.
type Expectation struct {
	TxHash        common.Hash
	BuyerWallet   common.Address
	Token         string         // symbol, for the record only
	TokenAddress  common.Address // zero for native ETH
	Decimals      uint8          // for the record only: amounts are compared in base units
	SplitAddress  common.Address
	RequiredUnits *big.Int // base units the receipt asks for (the quote for quoted tokens)
	ToleranceBps  uint     // how far below RequiredUnits still pays: 0 for stablecoins, 100 (1%) for quoted tokens
	Confirmations int      // CHAIN_CONFIRMATIONS; the transaction's own block counts as 1
}

// Native reports whether the payment is in ETH (the transaction's value) rather than an ERC-20.
func (e Expectation) Native() bool { return e.TokenAddress == (common.Address{}) }

// Validate rejects an expectation no transaction could ever satisfy properly.
func (e Expectation) Validate() error {
	switch {
	case e.TxHash == (common.Hash{}):
		return errors.New("chain: expectation without a transaction hash")
	case e.SplitAddress == (common.Address{}):
		return errors.New("chain: expectation without a split address")
	case e.BuyerWallet == (common.Address{}):
		return errors.New("chain: expectation without a buyer wallet")
	case e.RequiredUnits == nil || e.RequiredUnits.Sign() <= 0:
		return errors.New("chain: expectation without a positive required amount")
	case e.ToleranceBps >= 10_000:
		return errors.New("chain: tolerance must be below 10,000 basis points")
	case e.Confirmations < 1:
		return errors.New("chain: confirmations must be at least 1")
	}
	return nil
}

// MinimumUnits is the least amount that pays required with a tolerance of bps basis points,
// rounded up so that the tolerance is never exceeded by rounding.
func MinimumUnits(required *big.Int, bps uint) *big.Int {
	n := new(big.Int).Mul(required, big.NewInt(int64(10_000-bps)))
	n.Add(n, big.NewInt(9_999))
	return n.Quo(n, big.NewInt(10_000))
}

// Verdict is the outcome of one verification.
type Verdict struct {
	Status      Status
	FailureCode string // when Failed
	BlockNumber uint64 // zero while not mined
	BlockHash   common.Hash
	LogIndex    int      // block-wide index of the first counted Transfer log; -1 for ETH
	AmountUnits *big.Int // what reached the split from the buyer (nil while not judged)
	Depth       uint64   // head - block + 1; 0 while not mined
}

// observation is what the chain shows of one mined transaction: enough to judge it.
type observation struct {
	status      uint64
	blockNumber uint64
	blockHash   common.Hash
	logs        []types.Log // the receipt's logs, or at least every Transfer log to the split of the token
	tx          *Tx         // ETH payments only
}

// Verify checks one payment against the chain now. An RPC failure is returned as an error and
// never as a Failed verdict: the caller keeps the payment pending and asks again later.
func Verify(ctx context.Context, c Client, e Expectation) (Verdict, error) {
	if err := e.Validate(); err != nil {
		return Verdict{}, err
	}
	r, err := c.TransactionReceipt(ctx, e.TxHash)
	if errors.Is(err, ErrNotFound) {
		return Verdict{Status: Waiting, LogIndex: -1}, nil
	}
	if err != nil {
		return Verdict{}, fmt.Errorf("chain: receipt of %s: %w", e.TxHash, err)
	}
	head, err := c.BlockNumber(ctx)
	if err != nil {
		return Verdict{}, fmt.Errorf("chain: head: %w", err)
	}
	o := observation{status: r.Status, blockNumber: r.BlockNumber.Uint64(), blockHash: r.BlockHash, logs: derefLogs(r.Logs)}
	if v, deep := depthVerdict(o, head, e.Confirmations); !deep {
		return v, nil
	}
	if e.Native() && o.status == types.ReceiptStatusSuccessful {
		if o.tx, err = c.TransactionByHash(ctx, e.TxHash); err != nil {
			// Mined a moment ago yet unknown now: a reorg or a lagging node; ask again later.
			return Verdict{}, fmt.Errorf("chain: transaction %s: %w", e.TxHash, err)
		}
	}
	v := judge(e, o)
	v.Depth = depth(head, o.blockNumber)
	return v, nil
}

// depth is how deep block is under head, its own block counting as 1. A head behind the block
// (a load-balanced provider answering from a lagging node) counts as depth 0.
func depth(head, block uint64) uint64 {
	if head < block {
		return 0
	}
	return head - block + 1
}

// depthVerdict is the Waiting verdict of a mined transaction not yet confirmations deep, and
// deep=false; or deep=true when the rules may be applied.
func depthVerdict(o observation, head uint64, confirmations int) (Verdict, bool) {
	d := depth(head, o.blockNumber)
	if d >= uint64(confirmations) {
		return Verdict{}, true
	}
	return Verdict{Status: Waiting, BlockNumber: o.blockNumber, BlockHash: o.blockHash, LogIndex: -1, Depth: d}, false
}

// judge applies DESIGN 8's rules to a mined transaction that is deep enough.
func judge(e Expectation, o observation) Verdict {
	v := Verdict{BlockNumber: o.blockNumber, BlockHash: o.blockHash, LogIndex: -1}
	fail := func(code string) Verdict { v.Status, v.FailureCode = Failed, code; return v }
	if o.status != types.ReceiptStatusSuccessful {
		return fail(CodeTxReverted)
	}
	var amount *big.Int
	if e.Native() {
		amount = nativeAmount(e, o.tx)
	} else {
		amount, v.LogIndex = tokenAmount(e, o.logs)
	}
	if amount == nil {
		return fail(CodeWalletMismatch)
	}
	v.AmountUnits = amount
	if amount.Cmp(MinimumUnits(e.RequiredUnits, e.ToleranceBps)) < 0 {
		return fail(CodeSlippageExceeded)
	}
	v.Status = Paid
	return v
}

// nativeAmount is the ETH the buyer sent to the split in the transaction itself, or nil when the
// sender is not the buyer or nothing went to the split. ETH moved by a contract on the buyer's
// behalf (an internal call) is not seen: wallets pay ETH with a plain transfer.
func nativeAmount(e Expectation, tx *Tx) *big.Int {
	if tx == nil || tx.From != e.BuyerWallet || tx.Tx.To() == nil || *tx.Tx.To() != e.SplitAddress {
		return nil
	}
	if tx.Tx.Value().Sign() <= 0 {
		return nil
	}
	return new(big.Int).Set(tx.Tx.Value())
}

// tokenAmount sums the configured token's Transfer logs from the buyer to the split and returns
// the index of the first, or nil when there is none. The sender is the Transfer's from rather
// than the transaction's signer, so a smart-contract wallet or a relayer paying from the buyer's
// balance is accepted, and a transfer from anyone else is not.
func tokenAmount(e Expectation, logs []types.Log) (*big.Int, int) {
	var sum *big.Int
	first := -1
	for _, l := range logs {
		from, to, value, ok := decodeTransfer(l)
		if !ok || l.Address != e.TokenAddress || to != e.SplitAddress || from != e.BuyerWallet || l.Removed {
			continue
		}
		if sum == nil {
			sum, first = new(big.Int), int(l.Index)
		}
		sum.Add(sum, value)
	}
	if sum != nil && sum.Sign() == 0 {
		return nil, -1 // a zero-value Transfer moves nothing to the split
	}
	return sum, first
}

// decodeTransfer reads an ERC-20 Transfer log; ok is false for any other log (ERC-721 Transfer
// has the same topic 0 but four topics and no data).
func decodeTransfer(l types.Log) (from, to common.Address, value *big.Int, ok bool) {
	if len(l.Topics) != 3 || l.Topics[0] != TransferTopic || len(l.Data) != 32 {
		return from, to, nil, false
	}
	from = common.BytesToAddress(l.Topics[1].Bytes())
	to = common.BytesToAddress(l.Topics[2].Bytes())
	return from, to, new(big.Int).SetBytes(l.Data), true
}

func derefLogs(logs []*types.Log) []types.Log {
	out := make([]types.Log, len(logs))
	for i, l := range logs {
		out[i] = *l
	}
	return out
}

// IsCanonical tells whether the block seen earlier at number with hash is still on the canonical
// chain. A chain that is now shorter than number answers false.
func IsCanonical(ctx context.Context, c Client, number uint64, hash common.Hash) (bool, error) {
	h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(number))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("chain: header %d: %w", number, err)
	}
	return h.Hash() == hash, nil
}
