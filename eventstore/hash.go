package eventstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"
)

// ComputeHash returns sha256(prevHash || canonical bytes of e), the link of e in its stream's
// hash chain. The canonical bytes are every identifying field, each length-prefixed, so no two
// different events share them: stream, version, event id, type, recorded time (Unix µs), data
// and metadata exactly as stored.
func ComputeHash(prevHash []byte, e RecordedEvent) []byte {
	h := sha256.New()
	h.Write(prevHash)
	var num [8]byte
	field := func(b []byte) {
		binary.BigEndian.PutUint64(num[:], uint64(len(b)))
		h.Write(num[:])
		h.Write(b)
	}
	field([]byte(e.StreamID))
	binary.BigEndian.PutUint64(num[:], e.Version)
	field(num[:])
	field(e.ID[:])
	field([]byte(e.Type))
	binary.BigEndian.PutUint64(num[:], uint64(e.RecordedAt.UnixMicro()))
	field(num[:])
	field(e.Data)
	field(e.Metadata)
	return h.Sum(nil)
}

// ChainBreak describes the first event whose hash link does not hold.
type ChainBreak struct {
	StreamID string
	Version  uint64
	Position Position
	Reason   string
}

func (b *ChainBreak) Error() string {
	return fmt.Sprintf("hash chain broken in stream %q at version %d (position %s): %s",
		b.StreamID, b.Version, b.Position, b.Reason)
}

// VerifyChain checks that events (one stream, from version 1, in order) form an unbroken chain
// and returns the first break, or nil.
func VerifyChain(events []RecordedEvent) *ChainBreak {
	var prev []byte
	for i, e := range events {
		brk := func(reason string) *ChainBreak {
			return &ChainBreak{StreamID: e.StreamID, Version: e.Version, Position: e.Position, Reason: reason}
		}
		if e.Version != uint64(i+1) {
			return brk(fmt.Sprintf("version %d where %d was due", e.Version, i+1))
		}
		if !bytes.Equal(e.PrevHash, prev) {
			return brk("previous hash does not match the preceding event")
		}
		if !bytes.Equal(ComputeHash(prev, e), e.Hash) {
			return brk("stored hash does not match the event's content")
		}
		prev = e.Hash
	}
	return nil
}

// Prepare turns the events of one append into the records to store after a stream at version
// `version` whose last hash is prevHash: data compacted, metadata encoded, versions, times and
// hash links filled in. Positions are left to the adapter.
func Prepare(stream string, version uint64, prevHash []byte, now time.Time, events []EventData) ([]RecordedEvent, error) {
	out := make([]RecordedEvent, len(events))
	now = now.UTC().Truncate(time.Microsecond)
	for i, ev := range events {
		data := []byte("null")
		switch {
		case ev.Marshaled && len(ev.Data) > 0:
			data = ev.Data
		case len(ev.Data) > 0:
			var err error
			if data, err = compactData(ev.Data); err != nil {
				return nil, fmt.Errorf("%w: event %d data: %v", ErrInvalidEvent, i, err)
			}
		}
		meta, err := encodeMetadata(ev.Metadata)
		if err != nil {
			return nil, fmt.Errorf("encode metadata: %w", err)
		}
		r := RecordedEvent{
			ID: ev.ID, StreamID: stream, Type: ev.Type, Data: data, Metadata: meta,
			Version: version + uint64(i) + 1, RecordedAt: now, PrevHash: prevHash,
		}
		r.Hash = ComputeHash(prevHash, r)
		prevHash = r.Hash
		out[i] = r
	}
	return out, nil
}
