package onchain

import "errors"

// ErrSweepGas: a deposit sweep would take more gas than the operator's ceiling for its deposits
// (chain.Sweeper.GasCeiling), which real deposits and splits never reach: a deposit's ETH flush
// forwards all the gas left to its split, and a merchant's pre-deployed split whose receive()
// burns gas makes the operator pay it. Nothing was signed or sent; the sweeper sweeps the batch
// in halves and holds a single such deposit's split back for a while, reporting it.
var ErrSweepGas = errors.New("the sweep needs more gas than the operator's ceiling")
