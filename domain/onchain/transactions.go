package onchain

import "github.com/payledger/payledger/domain/money"

// A transaction a payment hint names, as the chain shows it (commands.ChainTransactions,
// implemented by chain.TransactionCredits).

// MinedTransaction is a transaction as the chain shows it.
type MinedTransaction struct {
	Mined, Reverted bool
	BlockNumber     uint64
	Credits         []ChainCredit // a successful transaction's transfers of configured tokens and its ETH value
}

// ChainCredit is one transfer a transaction made: to (lower-case hex), the token's symbol (ETH:
// the transaction's value, LogIndex -1) and the amount in base units. From is its sender as the
// chain shows it (lower-case hex: the Transfer log's from, or the transaction's sender for ETH),
// the payer a hint's receipt records instead of the wallet the browser names.
type ChainCredit struct {
	To, Token   string
	LogIndex    int
	AmountUnits string
	From        string
}

// Moves reports whether the credit moves something: a positive whole number of base units. A
// transfer of nothing is no payment, whoever logged it (anyone can emit a 0-token Transfer to
// any address, naming any sender, without an allowance).
func (c ChainCredit) Moves() bool { return money.PositiveUnits(c.AmountUnits) }
