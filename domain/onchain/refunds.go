package onchain

import (
	"github.com/payledger/payledger/domain/receipt"
)

// What the chain shows of a refund's transaction (settlement.RefundChain, implemented by
// chain.RefundReader).

// RefundTx is what the chain shows of a mined transaction a refund names.
type RefundTx struct {
	BlockNumber uint64
	BlockHash   string // lower case
	Succeeded   bool
	// Transfers are its ERC-20 Transfer logs (of configured tokens with their symbol, of others
	// with their contract only) and its ETH value (a plain transfer), each with its recipient.
	Transfers []receipt.ChainTransfer
}
