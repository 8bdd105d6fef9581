package settlement

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/onchain"
)

// SweepDeposit is one receipt's deposit as a sweep names it: the receipt id and the split its
// funds go to (0x hex). Its address follows from both and the factory.
type SweepDeposit = onchain.SweepDeposit

// SweptFunds is what a mined sweep moved from one deposit to its split in one token.
type SweptFunds = onchain.SweptFunds

// SweepFailure is a (deposit, token) whose flush the factory caught: the funds stay at the
// deposit, still bound to its split.
type SweepFailure = onchain.SweepFailure

// SweepOutcome is a mined sweep transaction.
type SweepOutcome = onchain.SweepOutcome

// ErrSweepReverts: the node says a sweep of these deposits reverts (eth_estimateGas). The caller
// sweeps the batch in halves, so that one deposit that makes it revert does not hold up the others.
var ErrSweepReverts = onchain.ErrSweepReverts

// ErrSweepGas: a sweep of these deposits needs more gas than the operator's ceiling for them (a
// split whose receive() burns the gas the deposit's ETH flush forwards). The caller sweeps the
// batch in halves and holds a single such deposit's split back.
var ErrSweepGas = onchain.ErrSweepGas

// SweepChain is the chain as sweeping uses it: the deposit factory (DEPOSIT_FACTORY) called from
// the operator's account. Signing never sends: Broadcast does, after the transaction is recorded.
type SweepChain interface {
	OperatorAccount
	// SignSweep signs factory.sweep(deposits, every configured token) at nonce, its gas estimated.
	// Errors: ErrSweepReverts (wrapped, with the node's reason), ErrSweepGas, node errors.
	SignSweep(ctx context.Context, nonce uint64, deposits []SweepDeposit) (SignedTx, error)
	// Broadcast sends a signed transaction; sending one the node already has is not an error.
	Broadcast(ctx context.Context, raw []byte) error
	// SweepOutcome is a sweep's result, its Swept and SweepFailed events attributed to deposits
	// (the ones it was signed for); nil (no error) while it is not mined CHAIN_CONFIRMATIONS deep
	// in a block still on the chain.
	SweepOutcome(ctx context.Context, hash string, deposits []SweepDeposit) (*SweepOutcome, error)
	// Replaced says whether the operator's transaction hash, signed at nonce, can no longer be
	// mined: it is in no block and the operator's nonce CHAIN_CONFIRMATIONS deep is past nonce.
	Replaced(ctx context.Context, hash string, nonce uint64) (bool, error)
	// StandardSplit says whether split holds the operator's own PaymentSplit code, whose receive()
	// only emits an event; deposits of any other contract are swept in sweeps of their own.
	StandardSplit(ctx context.Context, split string) (bool, error)
	// DepositSweeps lists every sweep of deposit the chain shows (its Swept events), by anyone:
	// sweeping is permissionless, so another account may have moved the funds first.
	DepositSweeps(ctx context.Context, deposit SweepDeposit) ([]SweptFunds, error)
}

// SweepCandidate is a receipt whose deposit may hold funds to sweep, as the ledger claimed it.
type SweepCandidate struct {
	ReceiptID string
	Deposit   string // the deposit address
	Split     string
	Version   uint64 // the receipt's version the claim saw
	// Held, when Checked, is what a failed receipt's check left at its deposit under the sweep
	// floor (receipt.SweepHeld), base units by token; nil for nothing held. The ledger keeps it
	// on the receipt's row for the operator (migration 054), not only in the pass's log.
	Held map[string]string
}

// OpenSweep is a sweep transaction signed and recorded, not settled yet, with its deposits.
type OpenSweep struct {
	Tx       OperatorTx
	Deposits []SweepDeposit
}

// SweepLedger keeps which deposits are being swept (migration 028). Every method is safe to call
// from several instances at once.
type SweepLedger interface {
	// NextNonce is one past the highest nonce recorded for sender, 0 when none.
	NextNonce(ctx context.Context, sender string) (uint64, error)
	// Claim claims, for token, up to limit receipts paid (or since reconciled, refund_requested or
	// refunded, or failed with something seen at the deposit) with a deposit address that changed
	// since they were last checked, are in no open sweep, and are not claimed by another live
	// claim (one older than lease is taken over: nothing was sent for it).
	Claim(ctx context.Context, token uuid.UUID, lease time.Duration, limit int) ([]SweepCandidate, error)
	// Checked releases claims: the receipts were checked at the versions given and need nothing
	// now; each one's Held (funds left under the sweep floor) is kept for the operator, or cleared.
	Checked(ctx context.Context, token uuid.UUID, checked []SweepCandidate) error
	// Renew restamps token's claims not tied to a sweep as made now, so that they stay token's for
	// another lease; rows another statement holds are passed over, not waited for.
	Renew(ctx context.Context, token uuid.UUID) error
	// Release gives up every claim of token not tied to a sweep, unchecked: a process stopping
	// lets another instance (or the restarted one) sweep them at once, not after the lease.
	Release(ctx context.Context, token uuid.UUID) error
	// RecordSweep stores tx (status signed) and ties the claimed receipts to it, atomically.
	// Errors: ErrNonceTaken, ErrClaimLost (another process took one of them over), database errors.
	RecordSweep(ctx context.Context, token uuid.UUID, tx OperatorTx, receipts []string) (int64, error)
	// OpenSweeps lists sender's sweeps still signed, by nonce.
	OpenSweeps(ctx context.Context, sender string) ([]OpenSweep, error)
	// SettleSweep records a mined sweep and frees its receipts: the ones in stuck (a flush of
	// theirs failed) count as checked at their current version, the others are checked again.
	SettleSweep(ctx context.Context, id int64, status string, gasUsed uint64, stuck []string) error
}

// TxSweep is the operator transaction kind of a deposit factory sweep.
const TxSweep = "sweep"
