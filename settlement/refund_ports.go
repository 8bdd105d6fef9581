package settlement

import (
	"context"
	"errors"
	"time"

	"github.com/payledger/payledger/domain/onchain"
)

// The ports of refund verification (DESIGN 10, "Refunds"): what the refund verifier needs of the
// chain and of the database. chain.RefundReader and pgstore.RefundClaims implement them.

// RefundTx is what the chain shows of a mined transaction a refund names.
type RefundTx = onchain.RefundTx

// RefundChain is the chain as the refund verifier reads it.
type RefundChain interface {
	// Head is the number of the newest block.
	Head(ctx context.Context) (uint64, error)
	// Transaction reads the mined transaction hash; found is false while the chain does not show
	// it (unknown, or not mined yet).
	Transaction(ctx context.Context, hash string) (tx RefundTx, found bool, err error)
	// BlockHashes is the canonical hash of each block number (absent: no such block), one batch.
	BlockHashes(ctx context.Context, numbers []uint64) (map[uint64]string, error)
	// Pending says whether the node holds the transaction hash waiting to be mined (in its
	// mempool); false for one it does not know.
	Pending(ctx context.Context, hash string) (bool, error)
}

// ErrRefundHashTaken: another receipt's refund took the hash (RefundClaimStore.Prove).
var ErrRefundHashTaken = errors.New("the transaction is counted for another receipt's refund")

// RefundClaim is a refund transaction hash and a receipt that holds a claim of it.
type RefundClaim struct {
	TransactionHash string
	ReceiptID       string
	ClaimedAt       time.Time // when it was claimed (or a reorg made it a claim again)
	BlockNumber     uint64    // counted on chain proof: the block it was verified in
	BlockHash       string
	Holders         int // the requests holding it when read (Claimed)
}

// RefundClaimStore is what the verifier reads and keeps of the refund hashes.
type RefundClaimStore interface {
	// Claimed lists up to limit hashes that are claimed and not counted, in the order of
	// (ClaimedAt, TransactionHash), from the first after the claim after (its ClaimedAt and
	// TransactionHash; the zero RefundClaim: from the first of all).
	Claimed(ctx context.Context, after RefundClaim, limit int) ([]RefundClaim, error)
	// Prove takes hash for receiptID's claim, proven in the block given, before the refund is
	// recorded: a hash pays one refund only, the first proven. taken false: the claim's row is
	// gone or counted already (another instance). Errors: ErrRefundHashTaken (another receipt's
	// refund took the hash).
	Prove(ctx context.Context, hash, receiptID string, blockNumber uint64, blockHash string) (taken bool, err error)
	// Counted marks hash counted for receiptID, in the block verified (0, "": the merchant's word).
	Counted(ctx context.Context, hash, receiptID string, blockNumber uint64, blockHash string) error
	// Free deletes the hash of c (as Claimed read it): its claim was refused (or never recorded).
	// When a request reserved it again since (more holders: the merchant claimed it again, on the
	// same receipt, after the refusal was recorded), it stays, a claim from at.
	Free(ctx context.Context, c RefundClaim, at time.Time) error
	// Reclaimed makes a counted hash a claim again from at (a reorg took it back then).
	Reclaimed(ctx context.Context, hash, receiptID string, at time.Time) error
	// CountedSince lists the hashes counted on chain proof in blocks after block.
	CountedSince(ctx context.Context, block uint64) ([]RefundClaim, error)
}
