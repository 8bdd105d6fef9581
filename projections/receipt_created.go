package projections

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// ReceiptCreated records receipt.created in the merchants' event log (webhook endpoints and
// GET /api/webhooks/stream) for every new receipt, so that a merchant's system learns of a
// receipt when it is made, not at its first status change.
//
// It is its own projector, not part of Receipts: the receipts projector applies most
// generations in their append's transaction (ReceiptsAtAppend) and never sees them again, and
// the event log's ordering lock must stay off the order path. The entry is keyed by the receipt
// ("receipt-created:<id>"), so a rebuild or a batch read twice records it once. A new
// installation of this projector starts where the receipts projector is (SeedReceiptCreated):
// receipts made before it existed get no receipt.created; nor do generations older than the
// event log keeps (readmodels.EventRetention), whose keys are gone.
type ReceiptCreated struct {
	// Notify, when set, wakes the dispatcher's endpoint worker after a committed batch.
	Notify func()
	// Decided, when set, holds the states of the generations this process appended
	// (ReceiptsAtAppend.HandsTo): those are not decoded again.
	Decided *Generations
}

// ReceiptCreatedType is the event type of a new receipt in the endpoint catalog.
const ReceiptCreatedType = readmodels.EventReceiptCreated

var (
	_ Projector = ReceiptCreated{}
	_ Paced     = ReceiptCreated{}
)

// ReadInterval implements Paced.
// A receipt.created comes at most PacedInterval later than it would otherwise; it already comes
// after the order's answer.
func (ReceiptCreated) ReadInterval() time.Duration { return PacedInterval }

// Name implements Projector.
func (ReceiptCreated) Name() string { return "receipt_created" }

// Reset implements Projector: nothing to empty (entries stay; their keys keep a rebuild from
// recording them twice).
func (ReceiptCreated) Reset(context.Context, pgx.Tx) error { return nil }

// Relevant implements Selective: a receipt's generation.
func (ReceiptCreated) Relevant(e eventstore.RecordedEvent) bool {
	return strings.HasPrefix(e.StreamID, ReceiptStreamPrefix) && e.Type == receipt.EventGenerated
}

// Filter implements Filtered: only generations leave the store for this projector.
func (ReceiptCreated) Filter() (streamPrefixes, types []string) {
	return []string{ReceiptStreamPrefix}, []string{receipt.EventGenerated}
}

// Apply implements Projector: one receipt.created entry per generation, with the receipt as the
// status read shows it at creation (status generated).
func (p ReceiptCreated) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	var entries []readmodels.NewEvent
	kept := time.Now().Add(-readmodels.EventRetention)
	for _, e := range events {
		if !p.Relevant(e) {
			continue
		}
		// A generation older than the event log keeps (a rebuild replaying it) is not announced:
		// its entry, and with it the key that records it once, was pruned, and recording it again
		// told the merchant of a receipt made long ago as new, under a new webhook-id.
		if e.RecordedAt.Before(kept) {
			continue
		}
		st, err := p.created(e)
		if err != nil {
			return err
		}
		data := readmodels.ReceiptWebhookOf(st, e.RecordedAt)
		data.Event = ReceiptCreatedType
		entries = append(entries, readmodels.NewEvent{Key: "receipt-created:" + st.Receipt.ReceiptID, Merchant: st.Receipt.Merchant,
			Type: ReceiptCreatedType, Data: data, At: e.RecordedAt})
	}
	if len(entries) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	if err := readmodels.QueueEvents(b, entries); err != nil {
		return err
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("receipt_created projector: %w", err)
	}
	return nil
}

// created is the state that generation e creates: as its append decided it when this process
// appended it (Decided), else e's data decoded.
func (p ReceiptCreated) created(e eventstore.RecordedEvent) (receipt.State, error) {
	if st, ok := p.Decided.take(e.ID); ok && ReceiptStreamPrefix+st.Receipt.ReceiptID == e.StreamID {
		if len(st.Receipt.Metadata) == 0 {
			st.Receipt.Metadata = nil // as decoded: the event omits empty metadata
		}
		return st, nil
	}
	ev, err := receipt.Decode(e.Type, e.Data)
	if err != nil {
		return receipt.State{}, fmt.Errorf("receipt_created projector: %w", undecodable(e, err))
	}
	return receipt.Evolve(receipt.State{}, ev), nil
}

// Committed implements the runner's post-commit hook.
func (p ReceiptCreated) Committed() {
	if p.Notify != nil {
		p.Notify()
	}
}

// SeedReceiptCreated gives the receipt_created projector, on its first start, the receipts
// projector's checkpoint, so that it does not announce the receipts made before it existed.
// A later start changes nothing.
func SeedReceiptCreated(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos)
		SELECT 'receipt_created', commit_pos, prepare_pos FROM projection_checkpoints WHERE name = 'receipts'
		ON CONFLICT (name) DO NOTHING`)
	if err != nil {
		return fmt.Errorf("seed the receipt_created checkpoint: %w", err)
	}
	return nil
}
