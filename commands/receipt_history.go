package commands

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// The audit query: a receipt's whole event history, each event with its hash link, and the check
// of the chain (GET /api/receipts/{id}/events, payledger receipts history).

// It is read from the event store itself, not from a table: the history is the events.

// ReceiptHistory returns receipt id's history for its merchant. Errors:
// ErrReceiptNotFound (also for another merchant's receipt), wrapped store errors.
func ReceiptHistory(ctx context.Context, store Store, id, merchant string) (History, error) {
	events, err := ReadReceiptEvents(ctx, store, id)
	if err != nil {
		return History{}, err
	}
	if len(events) == 0 {
		return History{}, ErrReceiptNotFound
	}
	var g receipt.Generated
	if json.Unmarshal(events[0].Data, &g) != nil || g.Merchant != merchant {
		return History{}, ErrReceiptNotFound
	}
	h := NewHistory(id, events)
	if h.Telemetry, err = receiptTelemetry(ctx, store, id, events[0].RecordedAt); err != nil {
		return History{}, err
	}
	return h, nil
}

// streamsReader is the optional store capability of reading many streams in one round trip
// (eventstore/postgres.Store.ReadStreams); a store without it is read one stream at a time.
type streamsReader interface {
	ReadStreams(ctx context.Context, streams []string) (map[string][]eventstore.RecordedEvent, error)
}

// receiptTelemetry is the payment page's reports of receipt id (its telemetry streams of the
// first TelemetryHours hours from created), oldest first.
func receiptTelemetry(ctx context.Context, store Store, id string, created time.Time) ([]HistoryEvent, error) {
	streams := make([]string, TelemetryHours)
	for i := range streams {
		streams[i] = TelemetryStream(id, created.Add(time.Duration(i)*time.Hour))
	}
	byStream := map[string][]eventstore.RecordedEvent{}
	if r, ok := store.(streamsReader); ok {
		read, err := r.ReadStreams(ctx, streams)
		if err != nil {
			return nil, fmt.Errorf("read telemetry: %w", err)
		}
		byStream = read
	} else {
		for _, st := range streams {
			evs, err := store.ReadStream(ctx, st, 1, MaxTelemetryPerHour)
			if err != nil {
				return nil, fmt.Errorf("read telemetry: %w", err)
			}
			byStream[st] = evs
		}
	}
	out := []HistoryEvent{}
	for _, st := range streams {
		for _, e := range byStream[st] {
			out = append(out, historyEvent(e))
		}
	}
	return out, nil
}

// historyEvent is e as a history shows it, with its hash link: a report's too (each hour's
// reports are a chain of their own), whose prevHash was shown null, as if every report began one.
func historyEvent(e eventstore.RecordedEvent) HistoryEvent {
	ev := HistoryEvent{Version: e.Version, Type: e.Type, RecordedAt: e.RecordedAt.UnixMilli(), Position: e.Position.String(),
		Data: e.Data, Metadata: e.Metadata, Hash: hex.EncodeToString(e.Hash)}
	if e.PrevHash != nil {
		ph := hex.EncodeToString(e.PrevHash)
		ev.PrevHash = &ph
	}
	return ev
}

// HistoryEvent is one event of a receipt's audit history.
type HistoryEvent struct {
	Version    uint64          `json:"version"`
	Type       string          `json:"type"`
	RecordedAt int64           `json:"recordedAt"`
	Position   string          `json:"position"`
	Data       json.RawMessage `json:"data"`
	Metadata   json.RawMessage `json:"metadata"`
	Hash       string          `json:"hash"`
	PrevHash   *string         `json:"prevHash"`
}

// History is a receipt's whole event history and the check of its hash chain.
type History struct {
	ReceiptID  string         `json:"receiptId"`
	Events     []HistoryEvent `json:"events"`
	ChainValid bool           `json:"chainValid"`
	BrokenAt   *BrokenLink    `json:"brokenAt"`
	// Telemetry is the payment page's reports, kept apart from the receipt's own stream
	// (TelemetryStream); each hour's reports form their own hash chain.
	Telemetry []HistoryEvent `json:"telemetry"`
}

// BrokenLink names the first event whose hash link does not hold.
type BrokenLink struct {
	Version  uint64 `json:"version"`
	Position string `json:"position"`
	Reason   string `json:"reason"`
}

// NewHistory renders a receipt's events and verifies their chain.
func NewHistory(id string, events []eventstore.RecordedEvent) History {
	v := History{ReceiptID: id, Events: make([]HistoryEvent, len(events)), ChainValid: true}
	for i, e := range events {
		v.Events[i] = historyEvent(e)
	}
	if brk := eventstore.VerifyChain(events); brk != nil {
		v.ChainValid = false
		v.BrokenAt = &BrokenLink{Version: brk.Version, Position: brk.Position.String(), Reason: brk.Reason}
	}
	return v
}
