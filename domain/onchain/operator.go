package onchain

import (
	"math/big"

	"github.com/payledger/payledger/domain/subscription"
)

// The operator's transactions as the chain adapter signs, estimates and reads them (the ports of
// settlement's operator account, split distribution and subscription charging, implemented by
// chain.Operator and chain.ChargeOperator).

// SignedTx is a transaction signed by the operator and not yet sent.
type SignedTx struct {
	Hash     string
	Raw      []byte
	Nonce    uint64
	Gas      uint64 // the estimated limit
	Contract string // a deployment's address
}

// TxOutcome is a mined transaction.
type TxOutcome struct {
	Success  bool
	GasUsed  uint64
	Contract string   // a deployment's address
	Released *big.Int // what a release paid (sum of its release events), nil for a deployment
}

// TxCall is a transaction the operator is about to sign: its target, its call data and the gas
// limit estimated for it.
type TxCall struct {
	To   string
	Data []byte
	Gas  uint64
}

// GasEstimate is what the node says of a TxCall: the gas limit to sign with, or, when the call
// would revert now, the node's reason (nothing is sent then and no gas is spent).
type GasEstimate struct {
	Gas    uint64
	Revert string
}

// SpendCheck is a spend about to be sent.
type SpendCheck struct {
	Permission subscription.Permission
	Amount     *big.Int
}

// SpendStatus is what the chain says of a SpendCheck.
type SpendStatus struct {
	Approved bool
	Refusal  string // why the spend would revert now; "" when it would not
}
