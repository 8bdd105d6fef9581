package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/groupcommit"
)

// Group commit (package groupcommit): concurrent appends to different streams share one INSERT
// and one commit.
//
// An append's expected-version check is the unique (stream_id, version) constraint, so a flush
// that hits a unique violation cannot tell whose append it was: it is rolled back whole and each
// half of it is flushed again, down to appends alone, which report the conflict to their own
// caller only (flushCalls).

// groupRows caps the events of one flush.
const groupRows = 512

// flushTimeout bounds a flush; an append whose context ends first stops waiting for it (its
// events stay in the flush).
const flushTimeout = 30 * time.Second

// pendingAppend is one append's events (or a group commit's) and the attachments to commit with
// them (Attachment).
type pendingAppend struct {
	recs []eventstore.RecordedEvent
	atts []Attachment
}

type appendCall = groupcommit.Call[pendingAppend, eventstore.AppendResult]

func (s *Store) newGroup(slots int) *groupcommit.Group[pendingAppend, eventstore.AppendResult] {
	return &groupcommit.Group[pendingAppend, eventstore.AppendResult]{
		Slots: slots, MaxSize: groupRows, Flush: s.flush,
		Size: func(p pendingAppend) int { return len(p.recs) + len(p.atts) },
	}
}

// commit stores recs (one append of events) and its attachment (nil: none) durably, alone or in
// a group commit.
func (s *Store) commit(ctx context.Context, recs []eventstore.RecordedEvent, att Attachment) (eventstore.AppendResult, error) {
	p := pendingAppend{recs: recs}
	if att != nil {
		p.atts = []Attachment{att}
	}
	if s.groupSlots <= 0 || s.beforeCommit != nil {
		return s.insert(ctx, p)
	}
	// The caller stops waiting when its context ends (a hung server must not hold it): events
	// no flush has taken yet are withdrawn (never stored), those in a flush stay there, as after
	// a connection lost during a commit.
	return s.group.DoContext(ctx, p)
}

func (s *Store) flush(batch []*appendCall) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	s.flushCalls(ctx, batch)
}

// flushCalls stores the appends of batch in one transaction and sets each call's result. On a
// unique violation (someone's expected version was stale, or an id stored already) it is rolled
// back whole, and each half is flushed again the same way, down to an append alone, which
// reports the conflict to its own caller only.
//
// Halves, not each append alone: one stale append among a full flush's 512 cost 512 transactions
// and commits, one after the other, every caller of the flush waiting through all of them. Stale
// appends are ordinary (two commands on one receipt at once: a payment page's concurrent quotes,
// a hint beside the deposit detector), so anyone could turn the busiest flushes into one commit
// per append; halving costs about 2·log2(512) = 18 transactions for one stale append.
func (s *Store) flushCalls(ctx context.Context, batch []*appendCall) {
	if len(batch) == 1 {
		batch[0].Result, batch[0].Err = s.insert(ctx, batch[0].Item)
		return
	}
	var recs, atts int
	for _, c := range batch {
		recs, atts = recs+len(c.Item.recs), atts+len(c.Item.atts)
	}
	all := pendingAppend{recs: make([]eventstore.RecordedEvent, 0, recs), atts: make([]Attachment, 0, atts)}
	for _, c := range batch {
		all.recs = append(all.recs, c.Item.recs...)
		all.atts = append(all.atts, c.Item.atts...)
	}
	positions, err := s.insertRows(ctx, all)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		half := len(batch) / 2 // someone's expected version was stale: find whose, by halves
		s.flushCalls(ctx, batch[:half])
		s.flushCalls(ctx, batch[half:])
		return
	}
	for _, c := range batch {
		if err != nil {
			c.Err = err
			continue
		}
		n := len(c.Item.recs)
		c.Result, positions = appendResult(c.Item.recs, positions[:n]), positions[n:]
	}
}
