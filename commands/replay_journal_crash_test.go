package commands_test

import (
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/eventstore/memory"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestJournalEntryReplayedAgainAfterItsReceiptMovedOn: the replay stored a journaled order and
// the process died before the journal was rewritten without it; meanwhile the receipt moved on
// (its customer reported from the payment page, paid it). The next replay finds the same event
// stored, under its id, and counts the entry done, on every adapter: it must not fail it for
// ever as a receipt id taken by another (the stream is past version 1), nor store it twice.
func TestJournalEntryReplayedAgainAfterItsReceiptMovedOn(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for name, store := range map[string]commands.Store{
		"memory":   memory.New(func() time.Time { return now }),
		"postgres": postgres.New(pgtest.Pool(t)),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			id := commands.NewReceiptID(now)
			ev, _, err := commands.GenerationEvent(newGeneration(id), now, eventstore.Metadata{})
			if err != nil {
				t.Fatal(err)
			}
			entry := journal.Entry{Stream: commands.ReceiptStream(id), Events: []eventstore.EventData{ev}}.
				WithSealedKey(journal.SealedKey{ReceiptID: id, Nonce: []byte{1}, Sealed: []byte{2}})
			replay := commands.NewJournalReplay(store, savedKeys{})
			if err := replay.StoreEntry(ctx, entry); err != nil {
				t.Fatal(err)
			}
			_, _, err = commands.ChangeReceipt(ctx, store, id, eventstore.Metadata{Actor: "customer"}, func(s receipt.State) ([]receipt.Event, error) {
				return receipt.RecordTelemetry(s, receipt.TelemetryRecorded{Event: "link_opened", At: now.UnixMilli()})
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := replay.StoreEntry(ctx, entry); err != nil {
				t.Fatalf("the same entry replayed again: %v", err)
			}
			evs, err := commands.ReadReceiptEvents(ctx, store, id)
			if err != nil || len(evs) != 2 || evs[0].ID != ev.ID {
				t.Fatalf("the receipt holds %d events (%v), want its generation once and the report", len(evs), err)
			}
		})
	}
}
