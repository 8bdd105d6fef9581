// Package esdb is the KurrentDB/EventStoreDB adapter of the event-store port, on
// EventStore-Client-Go v4.
//
// Stream versions are the server's revisions plus one. The hash chain travels in each event's
// user metadata as an envelope {"m": metadata, "t": recorded µs, "h": hash, "p": prev hash}.
// Appends read the stream's tail first (for the previous hash and to recognise a retried batch
// by its event ids) and then append with the exact revision read, so the chain can never fork;
// an Any append that loses a race reads again and retries.
package esdb

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	kdb "github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"github.com/payledger/payledger/eventstore"
)

// tailWindow is how many of a stream's last events are searched for a retried batch's ids.
const tailWindow = 64

// Store is the KurrentDB adapter.
type Store struct {
	client *kdb.Client
	now    func() time.Time
}

var _ eventstore.Store = (*Store)(nil)

// Open connects to the server at url (an esdb:// or kurrentdb:// connection string).
func Open(url string) (*Store, error) {
	cfg, err := kdb.ParseConnectionString(url)
	if err != nil {
		return nil, fmt.Errorf("esdb: parse connection string: %w", err)
	}
	client, err := kdb.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("esdb: connect: %w", err)
	}
	return &Store{client: client, now: time.Now}, nil
}

// Close releases the connection.
func (s *Store) Close() error { return s.client.Close() }

type envelope struct {
	Metadata   json.RawMessage `json:"m"`
	RecordedAt int64           `json:"t"`
	Hash       string          `json:"h"`
	PrevHash   string          `json:"p,omitempty"`
}

// Append implements eventstore.Store.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	if err := eventstore.Validate(stream, events); err != nil {
		return eventstore.AppendResult{}, err
	}
	for attempt := 0; ; attempt++ {
		tail, err := s.readTail(ctx, stream)
		if err != nil {
			return eventstore.AppendResult{}, err
		}
		version := uint64(0)
		var prevHash []byte
		if len(tail) > 0 {
			last := tail[len(tail)-1]
			version, prevHash = last.Version, last.Hash
		}
		if len(events) == 0 {
			return eventstore.AppendResult{Version: version}, nil
		}
		lastID := events[len(events)-1].ID
		for _, e := range tail {
			if e.ID == lastID {
				return eventstore.AppendResult{Version: e.Version, Position: e.Position}, nil
			}
		}
		if !expected.Matches(version) {
			return eventstore.AppendResult{}, &eventstore.WrongExpectedVersionError{Stream: stream, Expected: expected, Actual: version}
		}
		recs, err := eventstore.Prepare(stream, version, prevHash, s.now(), events)
		if err != nil {
			return eventstore.AppendResult{}, err
		}
		data, err := kurrentEvents(recs)
		if err != nil {
			return eventstore.AppendResult{}, err
		}
		var rev kdb.ExpectedRevision = kdb.NoStream{}
		if version > 0 {
			rev = kdb.Revision(version - 1)
		}
		res, err := s.client.AppendToStream(ctx, stream, kdb.AppendToStreamOptions{ExpectedRevision: rev}, data...)
		if isCode(err, kdb.ErrorCodeWrongExpectedVersion) {
			if expected.IsAny() && attempt < 50 {
				continue
			}
			return eventstore.AppendResult{}, s.wrongVersion(ctx, stream, expected)
		}
		if err != nil {
			return eventstore.AppendResult{}, fmt.Errorf("esdb: append to %q: %w", stream, err)
		}
		return eventstore.AppendResult{
			Version:  recs[len(recs)-1].Version,
			Position: eventstore.Position{Commit: res.CommitPosition, Prepare: res.PreparePosition},
		}, nil
	}
}

// kurrentEvents are the prepared records as KurrentDB events: the data as is, the metadata with
// the record's time and hash chain in an envelope.
func kurrentEvents(recs []eventstore.RecordedEvent) ([]kdb.EventData, error) {
	data := make([]kdb.EventData, len(recs))
	for i, r := range recs {
		env, err := json.Marshal(envelope{Metadata: r.Metadata, RecordedAt: r.RecordedAt.UnixMicro(), Hash: hex.EncodeToString(r.Hash), PrevHash: hex.EncodeToString(r.PrevHash)})
		if err != nil {
			return nil, fmt.Errorf("esdb: encode metadata: %w", err)
		}
		data[i] = kdb.EventData{EventID: r.ID, EventType: r.Type, ContentType: kdb.ContentTypeJson, Data: r.Data, Metadata: env}
	}
	return data, nil
}

// wrongVersion is the conflict error of an append KurrentDB refused, with the stream's version
// read again (the refusal does not carry it).
func (s *Store) wrongVersion(ctx context.Context, stream string, expected eventstore.ExpectedVersion) error {
	actual, err := s.readTail(ctx, stream)
	if err != nil {
		return err
	}
	v := uint64(0)
	if len(actual) > 0 {
		v = actual[len(actual)-1].Version
	}
	return &eventstore.WrongExpectedVersionError{Stream: stream, Expected: expected, Actual: v}
}

// readTail returns up to tailWindow of the stream's last events, oldest first.
func (s *Store) readTail(ctx context.Context, stream string) ([]eventstore.RecordedEvent, error) {
	rs, err := s.client.ReadStream(ctx, stream, kdb.ReadStreamOptions{Direction: kdb.Backwards, From: kdb.End{}}, tailWindow)
	if err != nil {
		return nil, fmt.Errorf("esdb: read tail of %q: %w", stream, err)
	}
	events, err := drain(rs, tailWindow, nil)
	if isCode(err, kdb.ErrorCodeResourceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("esdb: read tail of %q: %w", stream, err)
	}
	for i, j := 0, len(events)-1; i < j; i, j = i+1, j-1 {
		events[i], events[j] = events[j], events[i]
	}
	return events, nil
}

// ReadStream implements eventstore.Store.
func (s *Store) ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	var start kdb.StreamPosition = kdb.Start{}
	if from > 1 {
		start = kdb.Revision(from - 1)
	}
	rs, err := s.client.ReadStream(ctx, stream, kdb.ReadStreamOptions{From: start}, uint64(limit))
	if err != nil {
		return nil, fmt.Errorf("esdb: read stream %q: %w", stream, err)
	}
	events, err := drain(rs, limit, nil)
	if isCode(err, kdb.ErrorCodeResourceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("esdb: read stream %q: %w", stream, err)
	}
	return events, nil
}

// ReadAll implements eventstore.Store. The server's read of $all includes its start position and
// system events; both are skipped here.
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	for len(out) < limit {
		var start kdb.AllPosition = kdb.Start{}
		if from != eventstore.Start {
			start = kdb.Position{Commit: from.Commit, Prepare: from.Prepare}
		}
		want := limit - len(out) + 1 // one more: the start position itself comes back
		rs, err := s.client.ReadAll(ctx, kdb.ReadAllOptions{From: start}, uint64(want))
		if err != nil {
			return nil, fmt.Errorf("esdb: read all: %w", err)
		}
		raw, last := 0, from
		page, err := drain(rs, want, func(e *kdb.RecordedEvent) bool {
			raw++
			p := eventstore.Position{Commit: e.Position.Commit, Prepare: e.Position.Prepare}
			if last.Less(p) {
				last = p
			}
			return from.Less(p) && !strings.HasPrefix(e.EventType, "$")
		})
		if err != nil {
			return nil, fmt.Errorf("esdb: read all: %w", err)
		}
		out = append(out, page[:min(len(page), limit-len(out))]...)
		if raw < want || last == from { // the end of the log
			break
		}
		from = last
	}
	return out, nil
}

// Head implements eventstore.Store: the newest event of $all that ReadAll would return (system
// events skipped), read backwards from the end a page at a time.
func (s *Store) Head(ctx context.Context) (eventstore.Position, error) {
	const page = 256
	var from kdb.AllPosition = kdb.End{}
	for {
		rs, err := s.client.ReadAll(ctx, kdb.ReadAllOptions{Direction: kdb.Backwards, From: from}, page)
		if err != nil {
			return eventstore.Start, fmt.Errorf("esdb: read the log's head: %w", err)
		}
		raw, oldest := 0, kdb.Position{}
		events, err := drain(rs, 1, func(e *kdb.RecordedEvent) bool {
			raw++
			oldest = e.Position
			return !strings.HasPrefix(e.EventType, "$")
		})
		if err != nil {
			return eventstore.Start, fmt.Errorf("esdb: read the log's head: %w", err)
		}
		if len(events) > 0 {
			return events[0].Position, nil
		}
		if raw < page || oldest == from {
			return eventstore.Start, nil // only system events, or none
		}
		from = oldest
	}
}

// Subscribe implements eventstore.Store. It subscribes to $all from the stored position (which
// the server treats as exclusive; the start of the log needs an explicit Start, the default being
// the end). A subscription that the server refuses or drops ends Subscribe with its error, as the
// port says and as the PostgreSQL adapter does: the caller (the projections runner) logs it and
// subscribes again from its checkpoint. Retrying here hid a server that is down or refuses the
// caller: the projectors stood still without a line in the log.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, handle func(context.Context, []eventstore.RecordedEvent) error) error {
	var start kdb.AllPosition = kdb.Start{}
	if from != eventstore.Start {
		start = kdb.Position{Commit: from.Commit, Prepare: from.Prepare}
	}
	sub, err := s.client.SubscribeToAll(ctx, kdb.SubscribeToAllOptions{From: start, Filter: kdb.ExcludeSystemEventsFilter()})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("esdb: subscribe to $all after %s: %w", from, err)
	}
	defer func() { _ = sub.Close() }()
	return s.follow(ctx, sub, from, handle)
}

// follow hands the subscription's events after from to handle until ctx ends, handle fails or the
// subscription drops (its error, wrapped).
func (s *Store) follow(ctx context.Context, sub *kdb.Subscription, from eventstore.Position, handle func(context.Context, []eventstore.RecordedEvent) error) error {
	stop := context.AfterFunc(ctx, func() { _ = sub.Close() })
	defer stop()
	for {
		msg := sub.Recv()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch {
		case msg.SubscriptionDropped != nil:
			return fmt.Errorf("esdb: subscription to $all dropped after %s: %w", from, msg.SubscriptionDropped.Error)
		case msg.EventAppeared != nil:
			raw := msg.EventAppeared.OriginalEvent()
			e, err := convert(raw)
			if err != nil {
				return err
			}
			if !from.Less(e.Position) || strings.HasPrefix(raw.EventType, "$") {
				continue
			}
			if err := handle(ctx, []eventstore.RecordedEvent{e}); err != nil {
				return err
			}
			from = e.Position
		}
	}
}

func drain(rs *kdb.ReadStream, limit int, keep func(*kdb.RecordedEvent) bool) ([]eventstore.RecordedEvent, error) {
	defer rs.Close()
	var out []eventstore.RecordedEvent
	for {
		resolved, err := rs.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		raw := resolved.OriginalEvent()
		if keep != nil && !keep(raw) {
			continue
		}
		e, err := convert(raw)
		if err != nil {
			return nil, err
		}
		if len(out) < limit {
			out = append(out, e)
		}
	}
}

func convert(raw *kdb.RecordedEvent) (eventstore.RecordedEvent, error) {
	e := eventstore.RecordedEvent{
		ID: raw.EventID, StreamID: raw.StreamID, Type: raw.EventType, Data: raw.Data,
		Version:  raw.EventNumber + 1,
		Position: eventstore.Position{Commit: raw.Position.Commit, Prepare: raw.Position.Prepare},
	}
	var env envelope
	if len(raw.UserMetadata) > 0 && json.Unmarshal(raw.UserMetadata, &env) == nil && env.Hash != "" {
		e.Metadata = env.Metadata
		e.RecordedAt = time.UnixMicro(env.RecordedAt).UTC()
		var err error
		if e.Hash, err = hex.DecodeString(env.Hash); err != nil {
			return e, fmt.Errorf("esdb: event %s: bad hash: %w", raw.EventID, err)
		}
		if env.PrevHash != "" {
			if e.PrevHash, err = hex.DecodeString(env.PrevHash); err != nil {
				return e, fmt.Errorf("esdb: event %s: bad previous hash: %w", raw.EventID, err)
			}
		}
		return e, nil
	}
	// An event written by another tool: no chain information.
	e.Metadata, e.RecordedAt = raw.UserMetadata, raw.CreatedDate.UTC()
	return e, nil
}

func isCode(err error, code kdb.ErrorCode) bool {
	var e *kdb.Error
	return errors.As(err, &e) && e.Code() == code
}
