package postgres

import (
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/eventstore"
)

// Attachment is what this adapter's one decorator, projections.ReceiptsAtAppend, commits in an
// append's own transaction besides its events: a new receipt's read-model row (with the receipts
// projector's checkpoint) and its sealed webhook key, which must be atomic with the receipt's
// generation and which no other adapter can write in its transaction. It is not part of the
// event-store port (eventstore.Store carries events only): the decorator holds this adapter
// through an interface of its own (projections.AttachingStore). The adapter does not know what an
// attachment writes; it hands those of every append of one transaction (a group commit holds
// many) to the first one's QueueAll, which writes them together (one statement per table: the
// row's statement checks that the transaction holds exactly its rows' generations).
//
// It is an alias of an interface literal, not a defined type, so that the decorator declares the
// very same type (projections.Attachment) without importing this adapter; all is therefore
// []any (a literal cannot name itself).
type Attachment = interface {
	// QueueAll queues into batch, after the insert of the transaction's events (it may read
	// them), the writes of all (Attachments, this one among them, each of the decorator's own
	// type, in the order of their appends). The function it returns, if not nil, is called once
	// the transaction has committed, with the furthest position of its events.
	QueueAll(batch *pgx.Batch, all []any) (committed func(end eventstore.Position), err error)
}
