package app

import (
	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// The adapters in chain and readmodels and the ports they are wired to. A port is declared by
// the code that uses it (commands, settlement), and these adapters import neither (the layout,
// docs/architecture.md; settlement/pgstore, settlement's own adapter, asserts its ports itself).
// The assertions, here where the two meet, keep each promise checked at compile time even where
// the wiring reaches an adapter through a field or an optional capability.
var (
	_ commands.DepositAddresses  = chain.DepositAddresses{}
	_ commands.ChainTransactions = (*chain.TransactionCredits)(nil)
	_ settlement.ChargeChain     = (*chain.ChargeOperator)(nil)
	_ settlement.DepositChain    = chain.DepositScanner{}
	_ settlement.SplitChain      = (*chain.Operator)(nil)
	_ settlement.RefundChain     = chain.RefundReader{}
	_ settlement.SweepChain      = (*chain.Sweeper)(nil)

	_ commands.Catalog       = (*readmodels.OrderCatalog)(nil)
	_ commands.PricingSource = (*readmodels.OrderPricing)(nil)
	_ commands.DepositOwners = (*readmodels.Receipts)(nil)
)
