package postgres

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/payledger/payledger/eventstore"
)

// streamsRows caps the events of one multi-stream INSERT or COPY (one transaction); a batch of
// copyMin events or more goes by COPY (copyRows).
const (
	streamsRows = 4096
	copyMin     = 256
)

// AppendStreams appends to many streams at once: what a process that decided on many aggregates
// in one pass (the deposit detector confirming a block's 5,000 payments) writes instead of one
// Append each. Each append is checked against its expected version as Append checks it; the
// events go out in a few large batches (streamsRows events each, one transaction and one commit
// each; by COPY from copyMin events) rather than through the group commit's smaller flushes. A
// batch that hits a unique violation (someone's expected version was stale) is retried by halves
// down to the append alone, which reports the conflict to that append only. It returns each append's result and
// error, in order; an append with no events reads its stream's head. Errors per append: Append's.
func (s *Store) AppendStreams(ctx context.Context, appends []eventstore.StreamAppend) ([]eventstore.AppendResult, []error) {
	results, errs := make([]eventstore.AppendResult, len(appends)), make([]error, len(appends))
	var batch []int // the appends of the INSERT being filled
	var recs []eventstore.RecordedEvent
	inBatch := map[string]bool{} // their streams
	flush := func() {
		if len(batch) > 0 {
			s.insertStreams(ctx, appends, batch, recs, results, errs)
		}
		batch, recs = nil, nil
		clear(inBatch)
	}
	for i, a := range appends {
		if inBatch[a.Stream] {
			// A second append to a stream of the batch expects the head the first leaves: it is
			// judged once that head is stored, as two Appends one after the other would be.
			flush()
		}
		prepared, ok := s.prepareKnown(a)
		if !ok { // a head not cached, an expectation that fails, no events: Append's own path
			results[i], errs[i] = s.Append(ctx, a.Stream, a.Expected, a.Events...)
			continue
		}
		if len(recs)+len(prepared) > streamsRows {
			flush()
		}
		batch, recs = append(batch, i), append(recs, prepared...)
		inBatch[a.Stream] = true
	}
	flush()
	return results, errs
}

// prepareKnown prepares a's events on the cached head of its stream; ok is false when there is
// no cached head that a's expectation matches, or nothing to append, or an event Append would
// refuse (it then says why). The data's JSON is checked by Prepare's compaction, not also by
// eventstore.Validate first: at 10,000 events the second pass was 8% of the detector's CPU at
// a confirming block (issue 38).
func (s *Store) prepareKnown(a eventstore.StreamAppend) ([]eventstore.RecordedEvent, bool) {
	if len(a.Events) == 0 || a.Stream == "" || s.beforeCommit != nil {
		return nil, false
	}
	for _, ev := range a.Events {
		if ev.ID == uuid.Nil || ev.Type == "" {
			return nil, false
		}
	}
	h, known := s.heads.get(a.Stream)
	if !known || !a.Expected.Matches(h.version) {
		return nil, false
	}
	recs, err := eventstore.Prepare(a.Stream, h.version, h.hash, s.now(), a.Events)
	return recs, err == nil
}

// insertStreams stores the appends batch (indexes into appends, events recs) in one transaction;
// on a unique violation (a stale head) each half of it is stored again the same way, down to an
// append alone, which goes again through Append. Halves, as a group commit's flush does
// (flushCalls): one stale head among a confirming block's thousands of appends sent every one of
// them through Append, one after the other.
func (s *Store) insertStreams(ctx context.Context, appends []eventstore.StreamAppend, batch []int, recs []eventstore.RecordedEvent,
	results []eventstore.AppendResult, errs []error) {
	var positions []eventstore.Position
	var err error
	if len(recs) >= copyMin {
		positions, err = s.copyRows(ctx, recs)
	} else {
		positions, err = s.insertRows(ctx, pendingAppend{recs: recs})
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		if len(batch) == 1 {
			i := batch[0]
			s.heads.forget(appends[i].Stream)
			results[i], errs[i] = s.Append(ctx, appends[i].Stream, appends[i].Expected, appends[i].Events...)
			return
		}
		half, n := len(batch)/2, 0
		for _, i := range batch[:half] {
			n += len(appends[i].Events)
		}
		s.insertStreams(ctx, appends, batch[:half], recs[:n], results, errs)
		s.insertStreams(ctx, appends, batch[half:], recs[n:], results, errs)
		return
	}
	var last eventstore.Position
	for _, i := range batch {
		n := len(appends[i].Events)
		if err != nil {
			errs[i] = err
			recs = recs[n:]
			continue
		}
		mine := recs[:n]
		results[i] = appendResult(mine, positions[:n])
		if last.Less(results[i].Position) {
			last = results[i].Position
		}
		end := mine[n-1]
		s.heads.put(appends[i].Stream, head{version: end.Version, hash: end.Hash})
		recs, positions = recs[n:], positions[n:]
	}
	if err == nil {
		s.noteAppended(last)
		s.announce()
	}
}

// copyRows stores recs (many appends' events, in one transaction) with COPY and returns each
// event's position, in the order of recs: what insertRows does, for a batch large enough that
// COPY's row format beats one INSERT of nine arrays. The arrays were built, grown and copied
// whole into the Bind message, and PostgreSQL unpacked them again; COPY streams the rows in
// 64 KB messages and PostgreSQL inserts them in multi-row batches (issue 38). The rows'
// positions are read back in the same transaction (by its id, the primary key's prefix), as
// COPY returns none. A unique violation comes back as the INSERT's would (23505).
func (s *Store) copyRows(ctx context.Context, recs []eventstore.RecordedEvent) ([]eventstore.Position, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"events"}, copyColumns, newEventRows(recs)); err != nil {
		return nil, err
	}
	query := readBackSQL
	if s.notifyMode == NotifyInTx {
		query = readBackNotifySQL
	}
	rows, err := tx.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	stored := make(storedPositions, len(recs))
	if err := stored.read(rows); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return stored.of(recs)
}

var copyColumns = []string{"event_id", "stream_id", "version", "type", "data", "metadata", "recorded_at", "prev_hash", "hash"}

const readBackSQL = `SELECT tx_id, seq, stream_id, version FROM events WHERE tx_id = pg_current_xact_id()::text::bigint`

const readBackNotifySQL = `SELECT e.tx_id, e.seq, e.stream_id, e.version FROM events e, (SELECT pg_notify('` + Channel + `', '')) n
WHERE e.tx_id = pg_current_xact_id()::text::bigint`

// eventRows is recs as COPY's rows, in copyColumns' order (pgx.CopyFromSource); pgx encodes each
// row before asking for the next, so one row of values serves them all.
type eventRows struct {
	recs []eventstore.RecordedEvent
	next int
	row  []any
}

func newEventRows(recs []eventstore.RecordedEvent) *eventRows {
	return &eventRows{recs: recs, row: make([]any, len(copyColumns))}
}

func (r *eventRows) Next() bool { r.next++; return r.next <= len(r.recs) }

func (r *eventRows) Values() ([]any, error) {
	e := &r.recs[r.next-1]
	r.row[0], r.row[1], r.row[2], r.row[3] = pgtype.UUID{Bytes: e.ID, Valid: true}, e.StreamID, int64(e.Version), e.Type
	r.row[4], r.row[5], r.row[6], r.row[7], r.row[8] = []byte(e.Data), []byte(e.Metadata), e.RecordedAt, e.PrevHash, e.Hash
	return r.row, nil
}

func (r *eventRows) Err() error { return nil }
