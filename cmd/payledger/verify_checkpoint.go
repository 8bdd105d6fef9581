package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
)

// heldBackEvery is how often a walk that waits for held-back events says so.
const heldBackEvery = 10 * time.Second

// heldBackNotice reads the log for a walk up to its head and warns, every `every`, while the
// reads come back empty before the head: PostgreSQL holds committed events back while an older
// transaction is still open anywhere on the server (its snapshot horizon), and `verify` used to
// wait for it in silence, for as long as a forgotten session or a long job kept it open.
type heldBackNotice struct {
	eventstore.LogReader
	log         zerolog.Logger
	every       time.Duration
	since, last time.Time // the current wait's first empty read, and its last warning
}

func (h *heldBackNotice) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	evs, err := h.LogReader.ReadAll(ctx, from, limit)
	if err != nil || len(evs) > 0 {
		h.since = time.Time{}
		return evs, err
	}
	now := time.Now()
	if h.since.IsZero() {
		h.since, h.last = now, now
	}
	if now.Sub(h.last) >= h.every {
		h.last = now
		h.log.Warn().Str("task", "verify").Str("after", from.String()).Dur("waiting", now.Sub(h.since)).
			Msg("events before the log's head are held back while an older transaction is still open in the database; waiting for it to end")
	}
	return evs, err
}

// readCheckpointFile reads the checkpoint at path, refused unless key signed it.
func readCheckpointFile(path string, key []byte) (eventstore.Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return eventstore.Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	return eventstore.ReadCheckpoint(f, key)
}

// writeCheckpointFile writes c, signed with key, to path: to a file beside it first, synced and
// renamed into place, so a crash leaves the old checkpoint or the new one (the same path as
// --checkpoint's rolls it forward). The file is the operator's only (0600).
func writeCheckpointFile(path string, c eventstore.Checkpoint, key []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone once renamed; left only by a failure
	if err := eventstore.WriteCheckpoint(f, c, key); err != nil {
		f.Close()
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
