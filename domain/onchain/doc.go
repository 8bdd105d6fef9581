// Package onchain holds the values the chain adapter (chain/) and the processes that read the
// chain (settlement/, the hint check of commands/) exchange: transfers, mined and signed
// transactions, sweeps, spend checks. Plain data, no I/O: the ports that carry them are declared
// by the code that uses them (settlement, commands), which names these values by alias, and
// chain implements those ports without importing the processes.
package onchain
