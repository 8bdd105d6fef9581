package onchain

import "errors"

// ErrReleaseGas: a split's release would take more gas than the operator's ceiling
// (chain.ReleaseGasCeiling), which no PaymentSplitter release reaches: the contract (any
// PaymentSplitter may be a merchant's pre-deployed split) burns the operator's gas. Nothing was
// signed or sent; the distributor holds that release back for a while and reports it.
var ErrReleaseGas = errors.New("the release needs more gas than the operator's ceiling")
