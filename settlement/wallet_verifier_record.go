package settlement

import (
	"context"
	"sync"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// StreamsReader is the optional store capability of reading many streams in one round trip
// (eventstore/postgres.Store.ReadStreams): every event of each stream, in version order, by stream
// id. A store without it is read one stream at a time.
type StreamsReader interface {
	ReadStreams(ctx context.Context, streams []string) (map[string][]eventstore.RecordedEvent, error)
}

// A block's verdicts are loaded batchRead receipts per query and appended up to batchAppends at
// once: an append waiting on the store's group commit holds no database connection, so hundreds
// in flight make flushes of hundreds of rows.
const (
	batchRead    = 1000
	batchAppends = 256
)

// verdict is a payment and the chain's verdict on it.
type verdict struct {
	p PendingWalletPayment
	v PaymentVerdict
}

// recordAll records verdicts and calls done for each, possibly concurrently. With a StreamsReader
// the receipts are read batchRead per query, each verdict decided on the state read and appended
// with that version as expectation; a conflict (another writer in between), or a state that does
// not fold or decide, is recorded again through the per-receipt path (record), which reloads.
// Without one, each verdict is recorded through record, recordConcurrency at a time.
func (r verdictRecorder) recordAll(ctx context.Context, vs []verdict, done func(verdict, commands.ReceiptChange, error)) {
	slow := func(x verdict) {
		change, err := r.record(ctx, x.p, x.v)
		done(x, change, err)
	}
	var wg sync.WaitGroup
	reader, ok := r.store.(StreamsReader)
	if !ok {
		sem := make(chan struct{}, recordConcurrency)
		for _, x := range vs {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				slow(x)
			})
		}
		wg.Wait()
		return
	}
	sem := make(chan struct{}, batchAppends)
	for len(vs) > 0 {
		chunk := vs[:min(batchRead, len(vs))]
		vs = vs[len(chunk):]
		ids := make([]string, len(chunk))
		for i, x := range chunk {
			ids[i] = commands.ReceiptStream(x.p.ReceiptID)
		}
		read, err := reader.ReadStreams(ctx, ids)
		for i, x := range chunk {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				if err != nil {
					slow(x)
					return
				}
				change, ok := r.recordRead(ctx, x, read[ids[i]])
				if !ok {
					slow(x)
					return
				}
				done(x, change, nil)
			})
		}
	}
	wg.Wait()
}

// recordRead records x on the receipt whose events were read as evs, through the pipeline's
// batch form (commands.ChangeReceiptRead). ok is false when x must go through record instead,
// which reloads (the events do not fold, the decision fails, the receipt changed since the read,
// or the append failed).
func (r verdictRecorder) recordRead(ctx context.Context, x verdict, evs []eventstore.RecordedEvent) (commands.ReceiptChange, bool) {
	_, res, err := commands.ChangeReceiptRead(ctx, r.store, x.p.ReceiptID, evs, chainMeta, r.decide(x.p, x.v))
	if err != nil {
		return commands.ReceiptChange{}, false
	}
	return commands.ReceiptChange{ReceiptID: x.p.ReceiptID, Result: res}, true
}
