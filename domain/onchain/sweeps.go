package onchain

import (
	"errors"
	"math/big"
)

// Deposit sweeps as the chain shows them (settlement.SweepChain, implemented by chain.Sweeper).

// SweepDeposit is one receipt's deposit as a sweep names it: the receipt id and the split its
// funds go to (0x hex). Its address follows from both and the factory.
type SweepDeposit struct {
	ReceiptID string
	Split     string
}

// SweptFunds is what a mined sweep moved from one deposit to its split in one token.
type SweptFunds struct {
	ReceiptID string
	Token     string // symbol; ETH for ether
	Amount    *big.Int
	// Where it was swept: set by DepositSweeps (SweepOutcome's are its own transaction's).
	TransactionHash string
	BlockNumber     uint64
	// LogIndex is the Swept event's log index in its block (nil: not known), so that a transfer
	// to the deposit later in the same block is known to be after the sweep (receipt.Unswept).
	LogIndex *int
	// TxIndex is the sweep transaction's index in its block (nil: not known): an ETH credit in
	// the same block is placed against it (receipt.Unswept).
	TxIndex *int
}

// SweepFailure is a (deposit, token) whose flush the factory caught: the funds stay at the
// deposit, still bound to its split.
type SweepFailure struct {
	ReceiptID string
	Token     string // symbol, or the token's address when it is not a configured one
	Reason    string
}

// SweepOutcome is a mined sweep transaction.
type SweepOutcome struct {
	Success     bool
	GasUsed     uint64
	BlockNumber uint64
	Swept       []SweptFunds
	Failed      []SweepFailure
}

// ErrSweepReverts: the node says a sweep of these deposits reverts (eth_estimateGas). The caller
// sweeps the batch in halves, so that one deposit that makes it revert does not hold up the others.
var ErrSweepReverts = errors.New("the sweep reverts")
