package eventstore

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// A verify checkpoint records where every stream ended (its last version and hash) and how far
// the log went, signed with HMAC-SHA256 under a key the operator keeps out of the database. The
// hash chains alone are unkeyed: whoever can write the events table can delete a stream's last
// events, a whole stream, or rewrite a tail and recompute its hashes, and every chain still
// holds. Against a checkpoint, each of those shows: the stream is gone, ends before the recorded
// version, or has another hash at it.

// CheckpointFormat is the first line's format name.
const CheckpointFormat = "payledger-verify-checkpoint/1"

// MinCheckpointKey is the shortest key accepted (bytes).
const MinCheckpointKey = 32

var (
	// ErrCheckpointSignature: the file's HMAC does not match under the key given.
	ErrCheckpointSignature = errors.New("checkpoint signature does not match: another VERIFY_KEY signed it, or the file was changed")
	// ErrCheckpointFormat: the file is not a checkpoint (or one signed with the key but damaged).
	ErrCheckpointFormat = errors.New("not a payledger verify checkpoint")
)

// Checkpoint is what a verified walk of the log saw.
type Checkpoint struct {
	CreatedAt time.Time
	Head      Position // the walk's end (the log's Head when it started)
	Events    uint64
	Streams   map[string]StreamHead
}

type checkpointHeader struct {
	Format    string    `json:"format"`
	CreatedAt time.Time `json:"createdAt"`
	Head      Position  `json:"head"`
	Events    uint64    `json:"events"`
	Streams   int       `json:"streams"`
}

type checkpointStream struct {
	Stream  string `json:"stream"`
	Version uint64 `json:"version"`
	Hash    string `json:"hash"`
}

type checkpointMAC struct {
	MAC string `json:"hmacSha256"`
}

// WriteCheckpoint writes c as JSON lines (a header, one line per stream in stream order, then
// the HMAC-SHA256 under key of every byte before it).
func WriteCheckpoint(w io.Writer, c Checkpoint, key []byte) error {
	mac := hmac.New(sha256.New, key)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(io.MultiWriter(bw, mac))
	if err := enc.Encode(checkpointHeader{Format: CheckpointFormat, CreatedAt: c.CreatedAt.UTC(), Head: c.Head, Events: c.Events, Streams: len(c.Streams)}); err != nil {
		return err
	}
	for _, s := range slices.Sorted(maps.Keys(c.Streams)) {
		h := c.Streams[s]
		if err := enc.Encode(checkpointStream{Stream: s, Version: h.Version, Hash: hex.EncodeToString(h.Hash)}); err != nil {
			return err
		}
	}
	if err := json.NewEncoder(bw).Encode(checkpointMAC{MAC: hex.EncodeToString(mac.Sum(nil))}); err != nil {
		return err
	}
	return bw.Flush()
}

// ReadCheckpoint reads a checkpoint WriteCheckpoint wrote, refusing it (ErrCheckpointSignature)
// unless its HMAC matches under key. Nothing of an unsigned file is used, or reported beyond
// the refusal.
func ReadCheckpoint(r io.Reader, key []byte) (Checkpoint, error) {
	mac := hmac.New(sha256.New, key)
	br := bufio.NewReader(r) // no line limit: a stream id is as long as it is
	c := Checkpoint{Streams: map[string]StreamHead{}}
	var declared int
	var prev []byte
	var firstErr error
	for n := 0; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return Checkpoint{}, fmt.Errorf("read checkpoint: %w", err)
		}
		if len(line) == 0 {
			break
		}
		if prev != nil {
			mac.Write(prev)
			if err := c.parseLine(n-1, prev, &declared); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		prev = line
	}
	var sig checkpointMAC
	if prev == nil || json.Unmarshal(prev, &sig) != nil || sig.MAC == "" {
		return Checkpoint{}, fmt.Errorf("%w: no signature line at its end", ErrCheckpointFormat)
	}
	if want, err := hex.DecodeString(sig.MAC); err != nil || !hmac.Equal(want, mac.Sum(nil)) {
		return Checkpoint{}, ErrCheckpointSignature
	}
	if firstErr == nil && declared != len(c.Streams) {
		firstErr = fmt.Errorf("%w: %d streams listed, the header says %d", ErrCheckpointFormat, len(c.Streams), declared)
	}
	if firstErr != nil {
		return Checkpoint{}, firstErr
	}
	return c, nil
}

// parseLine reads line n (0: the header) into c.
func (c *Checkpoint) parseLine(n int, line []byte, declared *int) error {
	if n == 0 {
		var h checkpointHeader
		if err := json.Unmarshal(line, &h); err != nil || h.Format != CheckpointFormat {
			return fmt.Errorf("%w: the first line does not name %s", ErrCheckpointFormat, CheckpointFormat)
		}
		c.CreatedAt, c.Head, c.Events, *declared = h.CreatedAt, h.Head, h.Events, h.Streams
		return nil
	}
	var s checkpointStream
	err := json.Unmarshal(line, &s)
	hash, herr := hex.DecodeString(s.Hash)
	if err != nil || herr != nil || s.Stream == "" || s.Version == 0 || len(hash) != sha256.Size {
		return fmt.Errorf("%w: line %d is not a stream's version and hash", ErrCheckpointFormat, n+1)
	}
	if _, dup := c.Streams[s.Stream]; dup {
		return fmt.Errorf("%w: stream %q listed twice", ErrCheckpointFormat, s.Stream)
	}
	c.Streams[s.Stream] = StreamHead{Version: s.Version, Hash: hash}
	return nil
}

// CheckEvent is WalkLog's check against c: the event at a stream's checkpointed version must have
// the checkpointed hash (a tail rewritten with its hashes recomputed has another).
func (c Checkpoint) CheckEvent(e RecordedEvent) *ChainBreak {
	h, ok := c.Streams[e.StreamID]
	if !ok || h.Version != e.Version || bytes.Equal(h.Hash, e.Hash) {
		return nil
	}
	return &ChainBreak{StreamID: e.StreamID, Version: e.Version, Position: e.Position,
		Reason: fmt.Sprintf("hash %x differs from the checkpoint's %x: events up to this version were rewritten since the checkpoint", e.Hash, h.Hash)}
}

// Missing lists, in stream order, what c recorded and a walk (w, up to head) did not find: a
// stream gone, a stream that ends before its checkpointed version, a log shorter than it was.
func (c Checkpoint) Missing(w Walk, head Position) []string {
	var out []string
	for _, s := range slices.Sorted(maps.Keys(c.Streams)) {
		want := c.Streams[s]
		switch got, ok := w.Heads[s]; {
		case !ok:
			out = append(out, fmt.Sprintf("stream %s is gone (the checkpoint recorded version %d)", s, want.Version))
		case got.Version < want.Version:
			out = append(out, fmt.Sprintf("stream %s ends at version %d, the checkpoint recorded version %d: events were deleted", s, got.Version, want.Version))
		}
	}
	if w.Events < c.Events {
		out = append(out, fmt.Sprintf("the log holds %d events, the checkpoint recorded %d", w.Events, c.Events))
	}
	if head.Less(c.Head) {
		out = append(out, fmt.Sprintf("the log ends at position %s, before the checkpoint's %s", head, c.Head))
	}
	return out
}
