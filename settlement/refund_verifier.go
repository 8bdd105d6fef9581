package settlement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// RefundVerifier proves refunds on chain (DESIGN 10, "Refunds"): each step it reads the
// transaction of every claimed refund and, once the transaction is CHAIN_CONFIRMATIONS deep,
// records what the chain shows (receipt.JudgeRefund): RefundProcessed with the verified token,
// amount, recipient and block, or RefundRefused with the reason. A claim the chain never shows is
// refused after NotFoundAfter. It then audits the refunds it counted within the last refundAuditBlocks
// blocks: one whose block left the chain, its transaction not deep in another, is taken back
// (RefundReverted) and becomes a claim again. Facts go through the command pipeline (load,
// decide, append with the expected version), so two verifiers record each refund once.
type RefundVerifier struct {
	Chain         RefundChain
	Claims        RefundClaimStore
	Events        commands.Store
	Confirmations int           // CHAIN_CONFIRMATIONS (the transaction's own block counts as 1)
	NotFoundAfter time.Duration // 0: DefaultRefundNotFoundAfter
	Now           func() time.Time
	Log           zerolog.Logger

	// after is the last claim a full batch read: the next step reads on from it. Steps of one
	// verifier run one at a time (its worker's loop); each instance keeps its own.
	after RefundClaim
	// unrecorded is when this verifier first found a held hash without its claim in the
	// receipt's history (hash and receipt): the hold is freed refundClaimGrace after that.
	unrecorded map[RefundClaim]time.Time
}

// DefaultRefundNotFoundAfter is how long a claim may name a transaction the chain does not show
// before it is refused: a refund sent with a low fee may wait in the mempool for a while.
const DefaultRefundNotFoundAfter = time.Hour

// refundPendingMax is how long after its claim a claim waits for a transaction the node holds
// pending (a node forgets a pending transaction after a few hours; geth after 3): a claim of a
// transaction that never gets mined is refused in the end, and holds one of the receipt's open
// claims until then.
const refundPendingMax = 24 * time.Hour

// refundAuditBlocks is how many blocks after its block a counted refund is still audited for a
// reorg: as many as a reorg on the chains in use may reach, with room to spare.
const refundAuditBlocks = 64

// refundClaimGrace is how long a reserved hash may lack its claim in the receipt's history (the
// command reserves the hash, then appends) before the verifier frees it.
const refundClaimGrace = time.Minute

// refundClaimBatch bounds the claims read per step. A step reads on from where the last full
// batch ended and wraps around to the oldest (batch): every claim is read within
// ceil(claims / refundClaimBatch) steps, whoever made the others (the oldest 500 used to be read
// every step, so 500 claims of one merchant, made up or waiting in a mempool, held back every
// other merchant's refunds for an hour).
const refundClaimBatch = 500

// RefundStepResult says what a step recorded.
type RefundStepResult struct {
	Processed, Refused, Reverted int
}

// Step reads every claim and the recent counted refunds once. Errors: the first failure; every
// other claim is still judged, what was recorded stays recorded, and the next step reads again.
func (v *RefundVerifier) Step(ctx context.Context) (RefundStepResult, error) {
	var res RefundStepResult
	head, err := v.Chain.Head(ctx)
	if err != nil {
		return res, fmt.Errorf("refunds: head: %w", err)
	}
	claims, err := v.batch(ctx)
	if err != nil {
		return res, err
	}
	var first error // one claim that cannot be read now does not hold up the others
	for _, c := range claims {
		if err := v.verify(ctx, head, c, &res); err != nil && first == nil {
			first = fmt.Errorf("refunds: receipt %s, %s: %w", c.ReceiptID, c.TransactionHash, err)
		}
	}
	if err := v.audit(ctx, head, &res); err != nil && first == nil {
		first = err
	}
	v.forgetUnrecorded()
	return res, first
}

// forgetUnrecorded forgets the holds first found unrecorded long ago: another instance freed
// them (or their row went), and one still there is only found again, a grace later.
func (v *RefundVerifier) forgetUnrecorded() {
	now := v.Now()
	for k, first := range v.unrecorded {
		if now.Sub(first) > 10*refundClaimGrace {
			delete(v.unrecorded, k)
		}
	}
}

// batch is the claims of this step: up to refundClaimBatch, on from the last full batch, then
// from the oldest again up to where it began.
func (v *RefundVerifier) batch(ctx context.Context) ([]RefundClaim, error) {
	after := v.after
	claims, err := v.Claims.Claimed(ctx, after, refundClaimBatch)
	if err != nil {
		return nil, err
	}
	if len(claims) < refundClaimBatch && after.TransactionHash != "" { // the end: wrap around
		more, err := v.Claims.Claimed(ctx, RefundClaim{}, refundClaimBatch-len(claims))
		if err != nil {
			return nil, err
		}
		read := make(map[[2]string]bool, len(claims)) // a hash may be claimed on several receipts
		for _, c := range claims {
			read[[2]string{c.TransactionHash, c.ReceiptID}] = true
		}
		for _, c := range more {
			if !read[[2]string{c.TransactionHash, c.ReceiptID}] {
				claims = append(claims, c)
			}
		}
	}
	next := RefundClaim{}
	if len(claims) == refundClaimBatch {
		last := claims[len(claims)-1]
		next = RefundClaim{ClaimedAt: last.ClaimedAt, TransactionHash: last.TransactionHash, ReceiptID: last.ReceiptID}
	}
	v.after = next
	return claims, nil
}

// verify judges one claim when its transaction is deep enough.
func (v *RefundVerifier) verify(ctx context.Context, head uint64, c RefundClaim, res *RefundStepResult) error {
	l, err := commands.LoadReceipt(ctx, v.Events, c.ReceiptID)
	if err != nil {
		return err
	}
	now := v.Now()
	// A refund on the merchant's word is held under its hash and merchant (commands.RefundHashOf).
	rec, ok := l.State.CountedRefund(commands.RefundHashOf(c.TransactionHash))
	switch {
	case !ok && v.unrecordedFor(c, now) > refundClaimGrace: // reserved, never recorded (or refused already)
		delete(v.unrecorded, RefundClaim{TransactionHash: c.TransactionHash, ReceiptID: c.ReceiptID})
		return v.Claims.Free(ctx, c, now)
	case !ok:
		return nil
	}
	delete(v.unrecorded, RefundClaim{TransactionHash: c.TransactionHash, ReceiptID: c.ReceiptID})
	if rec.State == receipt.RefundStateProcessed { // the merchant's word, or recorded by another instance
		return v.Claims.Counted(ctx, c.TransactionHash, c.ReceiptID, rec.BlockNumber, rec.BlockHash)
	}
	hash := rec.TransactionHash // c's key may be "<hash>/<merchant>" (a claim naming refundTo)
	tx, found, err := v.Chain.Transaction(ctx, hash)
	if err != nil {
		return err
	}
	if !found {
		return v.notFound(ctx, c, hash, now, res)
	}
	if depth(head, tx.BlockNumber) < uint64(max(v.Confirmations, 1)) {
		return nil
	}
	if err := v.onChain(ctx, tx); err != nil {
		return err
	}
	ev := receipt.RefundEvidence{TransactionHash: hash, Succeeded: tx.Succeeded, Transfers: tx.Transfers,
		BlockNumber: tx.BlockNumber, BlockHash: tx.BlockHash, At: now.UnixMilli()}
	p, reason, ok := receipt.JudgeRefund(l.State, ev)
	if !ok {
		res.Refused++
		return v.refuse(ctx, c, reason)
	}
	if taken, err := v.take(ctx, c, p, res); err != nil || !taken {
		return err
	}
	if _, _, err := commands.ChangeReceipt(ctx, v.Events, c.ReceiptID, refundMeta(), func(st receipt.State) ([]receipt.Event, error) {
		// Judged again on the state appended to: the claim of the hash read above may have been
		// refused meanwhile (by another instance) and the hash claimed again for more, and a
		// verdict on the old claim would record the new one processed on a transfer that does not
		// bring its amount. A claim the transaction does not prove now waits for the next step.
		if p, _, ok = receipt.JudgeRefund(st, ev); !ok {
			return nil, nil
		}
		return receipt.ProcessRefund(st, p)
	}); err != nil || !ok {
		return err
	}
	res.Processed++
	v.Log.Info().Str("receipt", c.ReceiptID).Str("tx", c.TransactionHash).Str("token", p.Token).Str("units", p.AmountUnits).
		Msg("refunds: processed on chain proof")
	return v.Claims.Counted(ctx, c.TransactionHash, c.ReceiptID, p.BlockNumber, p.BlockHash)
}

// notFound handles a claim whose transaction the chain does not show mined: refused once the
// claim is NotFoundAfter old, unless the node holds the transaction waiting to be mined and the
// claim is not refundPendingMax old (stop 66). A transaction pending past the hour (a low fee in
// a busy hour, or behind an earlier transaction of the merchant's wallet) was refused, then
// mined: the customer had the money, the receipt said refused, and the page offered "Refund with
// wallet" again, which sends it a second time.
func (v *RefundVerifier) notFound(ctx context.Context, c RefundClaim, hash string, now time.Time, res *RefundStepResult) error {
	age := now.Sub(c.ClaimedAt)
	if age <= v.notFoundAfter() {
		return nil
	}
	pending, err := v.Chain.Pending(ctx, hash)
	switch {
	case err != nil:
		return err
	case pending && age <= refundPendingMax:
		return nil
	case pending:
		res.Refused++
		return v.refuse(ctx, c, "the transaction is still waiting to be mined "+refundPendingMax.String()+" after the claim")
	}
	res.Refused++
	return v.refuse(ctx, c, "the transaction is not on the chain "+v.notFoundAfter().String()+" after the claim")
}

// take takes c's hash for its proven claim before the refund is recorded: every receipt may
// claim a hash (a claim held it service-wide, so another merchant claiming it in a loop kept the
// real claim answering 409), and one transaction pays one refund only, the first proven. A claim
// of a hash another receipt's refund took is refused. taken false: nothing to record now.
func (v *RefundVerifier) take(ctx context.Context, c RefundClaim, p receipt.RefundProcessed, res *RefundStepResult) (bool, error) {
	taken, err := v.Claims.Prove(ctx, c.TransactionHash, c.ReceiptID, p.BlockNumber, p.BlockHash)
	if errors.Is(err, ErrRefundHashTaken) {
		res.Refused++
		return false, v.refuse(ctx, c, "the transaction is counted for another refund")
	}
	return taken, err
}

// unrecordedFor is how long c's hold has lacked its claim in the receipt's history: since this
// verifier first found it so, and since its claim time. The claim time alone freed holds a
// request was about to record: a hold taken again on a row left old by a request that crashed
// keeps the old time (Reserve counts holders, it does not move claimed_at), and another
// instance's clock behind this one's makes every fresh hold look old; its claim, recorded
// after the free, was then never read by any verifier (they read the table), the receipt
// refund_requested for good and the hash free for another receipt.
func (v *RefundVerifier) unrecordedFor(c RefundClaim, now time.Time) time.Duration {
	key := RefundClaim{TransactionHash: c.TransactionHash, ReceiptID: c.ReceiptID}
	if v.unrecorded == nil {
		v.unrecorded = map[RefundClaim]time.Time{}
	}
	first, seen := v.unrecorded[key]
	if !seen {
		v.unrecorded[key] = now
		return 0
	}
	return min(now.Sub(first), now.Sub(c.ClaimedAt))
}

// refuse records the refusal of a claim and frees its hash.
func (v *RefundVerifier) refuse(ctx context.Context, c RefundClaim, reason string) error {
	at := v.Now().UnixMilli()
	if _, _, err := commands.ChangeReceipt(ctx, v.Events, c.ReceiptID, refundMeta(), func(st receipt.State) ([]receipt.Event, error) {
		return receipt.RefuseRefund(st, commands.RefundHashOf(c.TransactionHash), reason, at)
	}); err != nil {
		return err
	}
	v.Log.Info().Str("receipt", c.ReceiptID).Str("tx", c.TransactionHash).Str("reason", reason).Msg("refunds: claim refused")
	// A claim of the hash made again between the refusal and here holds it again: it stays (Free).
	return v.Claims.Free(ctx, c, v.Now())
}

// audit takes back the counted refunds whose block left the chain and whose transaction is not
// deep in another block now; one found deep elsewhere is kept, at its new block. A header the node
// does not answer (null: a node behind a load balancer lagging the one that gave the head) is no
// reorg (stop 66): taken for one, with the same node not knowing the transaction yet, the refund
// was reverted and processed again at the next step, receipt.refunded told twice for one refund.
func (v *RefundVerifier) audit(ctx context.Context, head uint64, res *RefundStepResult) error {
	counted, err := v.Claims.CountedSince(ctx, head-min(head, refundAuditBlocks))
	if err != nil || len(counted) == 0 {
		return err
	}
	numbers := make([]uint64, len(counted))
	for i, c := range counted {
		numbers[i] = c.BlockNumber
	}
	hashes, err := v.Chain.BlockHashes(ctx, numbers)
	if err != nil {
		return fmt.Errorf("refunds: audit: %w", err)
	}
	for _, c := range counted {
		got, answered := hashes[c.BlockNumber]
		if !answered { // a node behind the head another node gave; the next step audits it
			v.Log.Warn().Str("receipt", c.ReceiptID).Str("tx", c.TransactionHash).Uint64("block", c.BlockNumber).
				Msg("refunds: audit: the node answered no header for a counted refund's block; audited at the next step")
			continue
		}
		if strings.EqualFold(got, c.BlockHash) {
			continue
		}
		if err := v.reorged(ctx, head, c, res); err != nil {
			return fmt.Errorf("refunds: audit of %s: %w", c.TransactionHash, err)
		}
	}
	return nil
}

// reorged handles a counted refund whose block left the chain.
func (v *RefundVerifier) reorged(ctx context.Context, head uint64, c RefundClaim, res *RefundStepResult) error {
	tx, found, err := v.Chain.Transaction(ctx, commands.RefundHashOf(c.TransactionHash))
	if err != nil {
		return err
	}
	if found && tx.Succeeded && depth(head, tx.BlockNumber) >= uint64(max(v.Confirmations, 1)) {
		if err := v.onChain(ctx, tx); err != nil {
			return err
		}
		proven, err := v.stillProven(ctx, c, tx)
		if err != nil || proven {
			return err
		}
	}
	at := v.Now().UnixMilli()
	if _, _, err := commands.ChangeReceipt(ctx, v.Events, c.ReceiptID, refundMeta(), func(st receipt.State) ([]receipt.Event, error) {
		return receipt.RevertRefund(st, commands.RefundHashOf(c.TransactionHash), at)
	}); err != nil {
		return err
	}
	res.Reverted++
	v.Log.Error().Str("receipt", c.ReceiptID).Str("tx", c.TransactionHash).Uint64("block", c.BlockNumber).
		Msg("refunds: a reorg took a counted refund off the chain; it is a claim again")
	return v.Claims.Reclaimed(ctx, c.TransactionHash, c.ReceiptID, time.UnixMilli(at))
}

// stillProven judges again a counted refund whose transaction was mined again in another block
// and, when that block's transaction still proves it, keeps it counted there. The same
// transaction may move other amounts in another branch (a refund sent through a contract whose
// transfers depend on the state it runs on): a refund the new block does not prove is taken back
// and judged again as a claim.
func (v *RefundVerifier) stillProven(ctx context.Context, c RefundClaim, tx RefundTx) (bool, error) {
	l, err := commands.LoadReceipt(ctx, v.Events, c.ReceiptID)
	if err != nil {
		return false, err
	}
	_, reason, ok := receipt.JudgeRefund(l.State, receipt.RefundEvidence{TransactionHash: commands.RefundHashOf(c.TransactionHash), Succeeded: tx.Succeeded,
		Transfers: tx.Transfers, BlockNumber: tx.BlockNumber, BlockHash: tx.BlockHash, At: v.Now().UnixMilli()})
	if !ok {
		v.Log.Error().Str("receipt", c.ReceiptID).Str("tx", c.TransactionHash).Uint64("block", tx.BlockNumber).Str("reason", reason).
			Msg("refunds: a counted refund's transaction mined again in another block does not prove it there")
		return false, nil
	}
	return true, v.Claims.Counted(ctx, c.TransactionHash, c.ReceiptID, tx.BlockNumber, tx.BlockHash)
}

// errOffChain: a transaction's receipt names a block that is not the chain's at its number.
var errOffChain = errors.New("the receipt's block is not on the chain")

// onChain checks that tx's block is the chain's block at its number (one header) before the
// refund is counted on it. A receipt is one request and the head another: a node behind a load
// balancer, or one that still serves a branch a reorg left, answers the receipt of a block that
// is no longer the chain's, and a refund recorded on it would be told to the merchant and the
// customer until the audit took it back. It is read again at the next step.
func (v *RefundVerifier) onChain(ctx context.Context, tx RefundTx) error {
	hashes, err := v.Chain.BlockHashes(ctx, []uint64{tx.BlockNumber})
	if err != nil {
		return fmt.Errorf("the block of the transaction: %w", err)
	}
	if got := hashes[tx.BlockNumber]; !strings.EqualFold(got, tx.BlockHash) {
		return fmt.Errorf("%w: block %d is %q, the receipt says %s", errOffChain, tx.BlockNumber, got, tx.BlockHash)
	}
	return nil
}

func (v *RefundVerifier) notFoundAfter() time.Duration {
	if v.NotFoundAfter <= 0 {
		return DefaultRefundNotFoundAfter
	}
	return v.NotFoundAfter
}

// refundMeta is the metadata of what the verifier records.
func refundMeta() eventstore.Metadata {
	return eventstore.Metadata{Actor: "refund-verifier", Source: "chain"}
}
