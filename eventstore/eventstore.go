// Package eventstore declares the event-store port that the write side appends to and the read
// side follows, and the pieces every adapter shares: expected versions, global positions, the
// typed concurrency error and the per-stream hash chain.
//
// Adapters live in the sub-packages postgres (default), esdb (KurrentDB/EventStoreDB) and memory
// (unit tests); package conformance holds the one suite that each of them passes.
package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Store is the event-store port.
//
// Append returns *WrongExpectedVersionError (matching ErrWrongExpectedVersion) when the stream is
// not at the expected version, ErrInvalidEvent for an event without id or type, and wrapped I/O
// errors otherwise. Re-appending events whose ids are already stored is a no-op that returns the
// original result. ReadStream and ReadAll return wrapped I/O errors only; an unknown stream reads
// as empty. Subscribe returns the handler's error, ctx.Err() when ctx ends, or a wrapped I/O error.
type Store interface {
	// Append writes events to the end of stream if the stream is at expected.
	Append(ctx context.Context, stream string, expected ExpectedVersion, events ...EventData) (AppendResult, error)
	// ReadStream returns up to limit events of stream with version >= from, in version order.
	ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]RecordedEvent, error)
	// ReadAll returns up to limit events of the global log strictly after from, in global order.
	// It never returns an event while an earlier one might still be committed.
	ReadAll(ctx context.Context, from Position, limit int) ([]RecordedEvent, error)
	// Subscribe calls handle with batches of events strictly after from, in global order, and
	// keeps following the log until ctx ends or handle fails.
	Subscribe(ctx context.Context, from Position, handle func(context.Context, []RecordedEvent) error) error
	// Head returns the position of the log's last committed event (Start when the log is empty).
	// ReadAll may still hold events up to it back for a moment; a one-shot walk of the log reads
	// until it reaches Head instead of stopping at its first empty read (see ReadUpTo).
	Head(ctx context.Context) (Position, error)
}

// EventData is an event to append. ID is chosen by the caller so that a retried append is
// recognised as the same event.
type EventData struct {
	ID       uuid.UUID
	Type     string
	Data     json.RawMessage
	Metadata Metadata
	// Marshaled says Data is json.Marshal's output, valid and compact already, and not changed
	// since: Prepare stores it as it is instead of checking and copying it (issue 38: the check
	// was a twentieth of the deposit detector's CPU at a block paying 5,000 receipts). It is not
	// written where EventData is (the degraded-mode journal): data read back is checked again.
	Marshaled bool `json:"-"`
}

// Metadata is the envelope information stored with every event.
type Metadata struct {
	CorrelationID string `json:"correlationId,omitempty"`
	CausationID   string `json:"causationId,omitempty"`
	Actor         string `json:"actor,omitempty"`
	Source        string `json:"source,omitempty"`
}

// RecordedEvent is an event as stored.
type RecordedEvent struct {
	ID         uuid.UUID
	StreamID   string
	Type       string
	Data       json.RawMessage
	Metadata   json.RawMessage
	Version    uint64 // 1 for the first event of a stream
	Position   Position
	RecordedAt time.Time
	PrevHash   []byte // nil for the first event of a stream
	Hash       []byte
}

// AppendResult tells where the last appended event landed.
type AppendResult struct {
	Version  uint64
	Position Position
}

// Position is a place in the global log. Positions are ordered by Commit, then Prepare. The
// PostgreSQL adapter stores the appending transaction id in Commit and the row sequence in
// Prepare; EventStoreDB uses its own commit and prepare positions. The zero Position is before
// every event.
type Position struct {
	Commit  uint64 `json:"commit"`
	Prepare uint64 `json:"prepare"`
}

// Start is the position before the first event.
var Start = Position{}

// Less reports whether p comes strictly before q.
func (p Position) Less(q Position) bool {
	if p.Commit != q.Commit {
		return p.Commit < q.Commit
	}
	return p.Prepare < q.Prepare
}

func (p Position) String() string { return fmt.Sprintf("%d/%d", p.Commit, p.Prepare) }

// ExpectedVersion is the optimistic-concurrency condition of an append.
type ExpectedVersion struct {
	kind    expectKind
	version uint64
}

type expectKind uint8

const (
	expectAny expectKind = iota
	expectNoStream
	expectExact
)

// Any appends whatever the stream's version.
func Any() ExpectedVersion { return ExpectedVersion{kind: expectAny} }

// NoStream appends only if the stream has no events.
func NoStream() ExpectedVersion { return ExpectedVersion{kind: expectNoStream} }

// Exact appends only if the stream's last version is v (0 means empty).
func Exact(v uint64) ExpectedVersion {
	if v == 0 {
		return NoStream()
	}
	return ExpectedVersion{kind: expectExact, version: v}
}

// IsAny reports whether e accepts any version.
func (e ExpectedVersion) IsAny() bool { return e.kind == expectAny }

// Matches reports whether a stream currently at version actual satisfies e.
func (e ExpectedVersion) Matches(actual uint64) bool {
	switch e.kind {
	case expectNoStream:
		return actual == 0
	case expectExact:
		return actual == e.version
	default:
		return true
	}
}

func (e ExpectedVersion) String() string {
	switch e.kind {
	case expectNoStream:
		return "no-stream"
	case expectExact:
		return fmt.Sprintf("%d", e.version)
	default:
		return "any"
	}
}

// ErrWrongExpectedVersion matches every *WrongExpectedVersionError with errors.Is.
var ErrWrongExpectedVersion = errors.New("wrong expected version")

// ErrInvalidEvent is returned for an event without id or type, or with invalid JSON.
var ErrInvalidEvent = errors.New("invalid event")

// WrongExpectedVersionError says that a stream was not at the version an append expected.
type WrongExpectedVersionError struct {
	Stream   string
	Expected ExpectedVersion
	Actual   uint64
}

func (e *WrongExpectedVersionError) Error() string {
	return fmt.Sprintf("stream %q: expected version %s, actual %d", e.Stream, e.Expected, e.Actual)
}

// Is makes errors.Is(err, ErrWrongExpectedVersion) true.
func (e *WrongExpectedVersionError) Is(target error) bool { return target == ErrWrongExpectedVersion }

// Validate checks the events of one append; it returns ErrInvalidEvent wrapped with the reason.
func Validate(stream string, events []EventData) error {
	if stream == "" {
		return fmt.Errorf("%w: empty stream id", ErrInvalidEvent)
	}
	for i, ev := range events {
		if ev.ID == uuid.Nil {
			return fmt.Errorf("%w: event %d has no id", ErrInvalidEvent, i)
		}
		if ev.Type == "" {
			return fmt.Errorf("%w: event %d has no type", ErrInvalidEvent, i)
		}
		if len(ev.Data) > 0 && !validJSON(ev.Data) {
			return fmt.Errorf("%w: event %d data is not JSON", ErrInvalidEvent, i)
		}
	}
	return nil
}
