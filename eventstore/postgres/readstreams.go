package postgres

import (
	"context"
	"fmt"

	"github.com/payledger/payledger/eventstore"
)

// ReadStreams returns every event of each of streams, in version order, by stream id (a stream
// without events is absent), in one query: what a command deciding on many aggregates at once
// (the wallet verifier confirming a block's payments) loads instead of one ReadStream each. The
// heads read are cached, so appends that expect them are one INSERT each (a stale head is
// harmless: the unique (stream_id, version) constraint rejects the insert). Errors: wrapped I/O
// errors.
func (s *Store) ReadStreams(ctx context.Context, streams []string) (map[string][]eventstore.RecordedEvent, error) {
	out := make(map[string][]eventstore.RecordedEvent, len(streams))
	if len(streams) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+selectColumns+` FROM events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, version`,
		streams)
	if err != nil {
		return nil, fmt.Errorf("read %d streams: %w", len(streams), err)
	}
	evs, err := scanEvents(rows, len(streams))
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		out[e.StreamID] = append(out[e.StreamID], e)
	}
	for id, evs := range out {
		last := evs[len(evs)-1]
		s.heads.put(id, head{version: last.Version, hash: last.Hash})
	}
	return out, nil
}
