package commands

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
)

// SealedKeys stores webhook keys sealed in degraded mode (secrets.WebhookKeys). Saving a key
// that is already stored must succeed and keep the stored one.
type SealedKeys interface {
	SaveSealed(ctx context.Context, receiptID string, nonce, sealed []byte) error
}

// JournalReplay stores the entries of the degraded-mode journal (journal.Replayer drives it)
// through the pipeline, as the orders that journaled them would have: a receipt's generation by
// AppendGeneration (so the receipts projection applies it at append, as any order's), anything
// else as a new stream's events.
type JournalReplay struct {
	store Store
	keys  SealedKeys
}

// NewJournalReplay returns the replay into store. It panics on a nil dependency.
func NewJournalReplay(store Store, keys SealedKeys) *JournalReplay {
	if store == nil || keys == nil {
		panic("commands.NewJournalReplay: nil dependency")
	}
	return &JournalReplay{store: store, keys: keys}
}

// StoreEntry implements journal.EntryStore: the sealed webhook key first, then the events under
// their original ids. Both steps are idempotent: the key is kept if stored, and the same event
// ids already stored (by an earlier, partly failed replay, or by the very append whose answer
// was lost and sent the order to the journal) make the append report the first one's result.
// The key is not committed with the events here: an entry whose events were stored without it
// would then never get it. Errors: receipt.ErrExists or another error when the stream holds other
// events, decoding errors, wrapped store errors.
func (r *JournalReplay) StoreEntry(ctx context.Context, e journal.Entry) error {
	if raw, ok := e.Side[journal.SideWebhookKey]; ok {
		var k journal.SealedKey
		if err := json.Unmarshal(raw, &k); err != nil {
			return fmt.Errorf("journal side data of %s: %w", e.Stream, err)
		}
		if err := r.keys.SaveSealed(ctx, k.ReceiptID, k.Nonce, k.Sealed); err != nil {
			return err
		}
	}
	if err := r.append(ctx, e); err != nil {
		return fmt.Errorf("append %s: %w", e.Stream, err)
	}
	return nil
}

// append appends e's events: a receipt's generation as a new receipt, else as a new stream.
func (r *JournalReplay) append(ctx context.Context, e journal.Entry) error {
	if len(e.Events) == 1 && e.Events[0].Type == receipt.EventGenerated {
		ev, err := receipt.Decode(e.Events[0].Type, e.Events[0].Data)
		if err != nil {
			return err
		}
		state := receipt.Evolve(receipt.State{}, ev)
		if ReceiptStream(state.Receipt.ReceiptID) == e.Stream {
			_, err = AppendGeneration(ctx, r.store, e.Events[0], state, nil)
			return err
		}
	}
	decide := func(l Loaded[struct{}]) (Decision, error) {
		if l.Version > 0 {
			return nil, fmt.Errorf("%s already holds other events", e.Stream) // not a conflict to retry
		}
		return e.Events, nil
	}
	noFold := Aggregate[struct{}]{Apply: func(s struct{}, _ eventstore.RecordedEvent) (struct{}, error) { return s, nil }}
	_, _, err := execute(ctx, r.store, e.Stream, noFold, struct{}{}, decide, route{fresh: true})
	return err
}
