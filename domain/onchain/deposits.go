package onchain

import "context"

// What the chain shows of deposit addresses: the transfers to them and the blocks read (the
// deposit detector's chain port, settlement.DepositChain, implemented by chain.DepositScanner).

// DepositTransfer is one transfer to a deposit address found on the chain: a Transfer log of a
// configured token, an ETH transaction, or (LogIndex settlement.BalanceLogIndex) ETH found by the deposit's
// balance, whose TransactionHash is then the hash of the block the balance was read at.
type DepositTransfer struct {
	Deposit         string // deposit address, lower case
	TransactionHash string
	LogIndex        int
	BlockNumber     uint64
	BlockHash       string
	Sender          string
	Token           string // symbol
	Decimals        uint8
	AmountUnits     string // base units, a decimal integer
	// BlockTime is the block's timestamp (Unix ms; 0 when the node did not give it): when the
	// transfer happened, as the chain proves it, whenever the service saw it.
	BlockTime int64
	// TxIndex is the transaction's index in its block (nil: not known): an ETH transfer has no
	// log, and its place against a sweep in the same block is known only by it (receipt.Unswept).
	TxIndex *int
	// Contract is the token contract of a Transfer log of a token not configured (Token is then
	// empty): recorded as receipt.DepositUnknownToken, never credited.
	Contract string
}

// DepositScan is what the chain shows over a block range: the transfers to the deposits asked
// for and the hash of every block of the range.
type DepositScan struct {
	Head      uint64 // the newest block's number
	To        uint64 // the last block read (0: none, the range was past the head)
	Transfers []DepositTransfer
	Hashes    map[uint64]string
	Parent    string // the parent hash of the range's first block: is the block before still the one read?
}

// DepositWatch gives a scan the deposit addresses to match (lower case). A scan calls it once,
// after it has read the newest block, so the addresses are read after every block of the range
// was mined.
type DepositWatch func(ctx context.Context) (watched func(address string) bool, err error)

// MinedTx is a transaction as the chain shows it now: its block, and whether it reverted.
type MinedTx struct {
	Reverted    bool
	BlockNumber uint64
	BlockHash   string // lower case
}
