package settlement

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/receipt"
)

// The ports of deposit detection (DESIGN 9): what the deposit detector needs of the chain and of
// the database. chain.DepositScanner and pgstore.Deposits implement them.

// DepositTransfer is one transfer to a deposit address found on the chain: a Transfer log of a
// configured token, an ETH transaction, or (LogIndex BalanceLogIndex) ETH found by the deposit's
// balance, whose TransactionHash is then the hash of the block the balance was read at.
type DepositTransfer = onchain.DepositTransfer

// BalanceLogIndex is the log index of ETH found by a deposit's balance rather than by a
// transaction (sent by a contract: an internal transfer, visible in no transaction's fields).
const BalanceLogIndex = -2

// DepositScan is what the chain shows over a block range: the transfers to the deposits asked
// for and the hash of every block of the range.
type DepositScan = onchain.DepositScan

// DepositWatch gives a scan the addresses to match, read after the newest block.
type DepositWatch = onchain.DepositWatch

// DepositChain is the chain as the deposit detector reads it. A step costs a constant number of
// JSON-RPC requests, whatever the number of deposits.
type DepositChain interface {
	// Head is the number of the newest block (read once, at a first start).
	Head(ctx context.Context) (uint64, error)
	// Genesis is the hash of block 0: which chain this is (a development chain started afresh,
	// a reset testnet, or another chain with the same id has another).
	Genesis(ctx context.Context) (string, error)
	// Scan reads the blocks from `from` on, at most most of them and not past the head: the
	// newest block (which tells Head), one eth_getLogs for the Transfer logs of every contract
	// (recipients matched in memory against the addresses watch returns; a token not configured
	// has Contract set), the blocks with their transactions (ETH sent to a watched address by a
	// transaction that succeeded). watch is called once, after the newest block is read and
	// before any block is matched, and not at all when there is no block to read: the addresses
	// are then read after every block of the range was mined.
	Scan(ctx context.Context, from, most uint64, watch DepositWatch) (DepositScan, error)
	// BlockHashes is the canonical hash of each block number (absent: no such block).
	BlockHashes(ctx context.Context, numbers []uint64) (map[uint64]string, error)
	// Balances is the ETH balance of each address at the block of hash block (that block's
	// state, not whichever block the node has at its number now), in one request per
	// chain.BalancesPerCall addresses.
	Balances(ctx context.Context, addresses []string, block string) ([]*big.Int, error)
	// Transactions is what each transaction did, nil for one not mined (or unknown), in one
	// batch: the audit's and the hints' check (deposit_audit.go).
	Transactions(ctx context.Context, hashes []string) ([]*MinedTx, error)
	// TransfersTo is the ERC-20 Transfer logs of blocks [from, to] to any of addresses, by
	// recipient topic: the look-back for deposits watched late (deposit_lookback.go).
	TransfersTo(ctx context.Context, from, to uint64, addresses []string) ([]DepositTransfer, error)
	// FirstBlockAt is the first block up to hi whose timestamp is at or after t, hi+1 when block
	// hi's is before t: where the look-back for a receipt issued before every head the detector
	// remembers begins.
	FirstBlockAt(ctx context.Context, t time.Time, hi uint64) (uint64, error)
}

// MinedTx is a transaction as the chain shows it now: its block, and whether it reverted.
type MinedTx = onchain.MinedTx

// PaidTransfer is the transfer a receipt was recorded paid by (verifiedBy chain): the payment's
// attempt, transaction and block, as the receipt's state keeps them.
type PaidTransfer struct {
	AttemptID, TransactionHash string
	BlockNumber                uint64
	BlockHash                  string
}

// OpenDeposit is a receipt whose deposit address is watched.
type OpenDeposit struct {
	ReceiptID string
	Address   string // lower case
	Settled   bool   // paid or reconciled: watched for later transfers, not by balance
	// ETHQuoted: not settled and quoted in ETH, so ETH may come from a contract (an internal
	// transfer no transaction shows): its balance is read too.
	ETHQuoted bool
	// Unconfirmed are the transfers seen and neither confirmed nor dropped yet.
	Unconfirmed []DepositTransfer
	// Paid is the paying transfer of a receipt settled on chain (nil otherwise); Withdrawn its
	// transaction while a reorg past the depth has it off the chain (the receipt flagged).
	Paid      *PaidTransfer
	Withdrawn string
	// Version is the receipt's stream version the read model holds.
	Version uint64
	// CreatedAt is when the receipt was issued, so when its address was shown at the earliest.
	CreatedAt time.Time
	// Listed is when the receipt's row was written, on the database's clock (DepositCursor's
	// WatchedAt): which deposits a restarted detector looks back for (deposit_lookback.go).
	Listed time.Time
	// Known: the receipt is at the version the caller named (OpenKnown's known), so its state's facts
	// (Unconfirmed, Paid, Withdrawn) are left out for the caller to fill from the state it holds
	// (FillFromState).
	Known bool
}

// DepositStore is what the detector keeps and reads in the database.
type DepositStore interface {
	// OpenKnown returns the receipts whose deposit address is watched at now: generated or pending,
	// failed less than monitor after their window ended (or, expired, less than monitor + late:
	// the late watch, whose transfers pay nothing and are recorded to be refunded), paid or
	// reconciled less than monitor ago. A receipt whose read model is at the version known
	// names (receipt id to stream version) comes Known, without its state's facts: at the
	// confirming block of 5,000 payments, decoding their credits is what the detector, which
	// holds those states, need not wait for (issue 38).
	OpenKnown(ctx context.Context, now time.Time, monitor, late time.Duration, known map[string]uint64) ([]OpenDeposit, error)
	// Cursor returns where the follower name stopped (ok false: never ran).
	Cursor(ctx context.Context, name string) (c DepositCursor, ok bool, err error)
	// SaveCursor records that name processed every block up to c.Number (c.Hash) of the chain
	// c.Genesis.
	SaveCursor(ctx context.Context, name string, c DepositCursor) error
	// DepositsOf returns the deposits of the receipts ids as OpenKnown does (monitor before now
	// for ETHQuoted), whatever their status: the receipts whose kept transfers the detector
	// watches though the watch list may have let them go (deposit_held.go).
	DepositsOf(ctx context.Context, ids []string, now time.Time, monitor time.Duration, known map[string]uint64) ([]OpenDeposit, error)
	// Held returns the receipts whose transfers the follower name keeps on the chain genesis,
	// each with the first block of them, as SaveHeld left them.
	Held(ctx context.Context, name, genesis string) (map[string]uint64, error)
	// SaveHeld records that name keeps the transfers of each receipt of set from its block on,
	// and no longer those of drop, at once.
	SaveHeld(ctx context.Context, name, genesis string, set map[string]uint64, drop []string) error
}

// UnconfirmedOf is the credits of a deposit neither confirmed nor dropped, as transfers.
func UnconfirmedOf(deposit string, credits []receipt.Credit) []DepositTransfer {
	var out []DepositTransfer
	for _, c := range credits {
		if c.Confirmed || c.Dropped {
			continue
		}
		out = append(out, DepositTransfer{Deposit: deposit, TransactionHash: c.TransactionHash, LogIndex: c.LogIndex,
			BlockNumber: c.BlockNumber, BlockHash: c.BlockHash, Sender: c.Sender, Token: c.Token, Decimals: c.Decimals, AmountUnits: c.AmountUnits, BlockTime: c.BlockTime})
	}
	return out
}

// PaidOf is the paying transfer of a payment verified on chain, nil for any other (or none).
func PaidOf(p *receipt.Payment) *PaidTransfer {
	if p == nil || p.VerifiedBy != receipt.VerifiedByChain || p.BlockHash == "" || p.TransactionHash == "" {
		return nil
	}
	return &PaidTransfer{AttemptID: p.AttemptID, TransactionHash: strings.ToLower(p.TransactionHash),
		BlockNumber: p.BlockNumber, BlockHash: strings.ToLower(p.BlockHash)}
}

// FillFromState fills a Known deposit's facts from its receipt's state at o.Version; ok is false
// for a receipt whose deposit is not watched after all (its chain gone).
func FillFromState(o *OpenDeposit, st receipt.State) bool {
	if st.DepositChainGone != nil {
		return false
	}
	o.Unconfirmed = UnconfirmedOf(o.Address, st.Credits)
	if o.Settled {
		o.Paid = PaidOf(st.Payment)
	}
	o.Withdrawn = st.ChainWithdrawnTx
	_, eth := st.Quotes["ETH"]
	o.ETHQuoted = o.ETHQuoted && eth
	return true
}

// DepositCursor is where a follower stopped: the last block it processed, on which chain.
type DepositCursor struct {
	Number  uint64
	Hash    string
	Genesis string // "" for a cursor saved before the genesis was kept (migration 034)
	// WatchedAt, as read, is when the step that saved the cursor began to read its watch list,
	// on the database's clock; zero when not known (saved before migration 035, or by hand).
	WatchedAt time.Time
	// WatchedFor, when saving, is how long before the save the step began to read its watch
	// list: WatchedAt is saved as the database's time less it. 0 saves none (not known);
	// negative keeps the one saved (a step whose look-back failed: its deposits are still to be
	// looked back for, after a restart too).
	WatchedFor time.Duration
}
