package main

import (
	"cmp"
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
	task        string // the log lines' task ("" is verify)
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
		h.log.Warn().Str("task", cmp.Or(h.task, "verify")).Str("after", from.String()).Dur("waiting", now.Sub(h.since)).
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

// checkpointOut is a checkpoint file being written: a temporary file beside path, created
// before the walk (a path that cannot be written fails at once, not after hours of walking),
// written, synced and renamed into place once the log verified, so a crash leaves the old
// checkpoint or the new one (the same path as --checkpoint's rolls it forward). 0600: the
// operator's only.
type checkpointOut struct {
	path string
	f    *os.File
}

func createCheckpointFile(path string) (*checkpointOut, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("checkpoint-out: %w", err)
	}
	return &checkpointOut{path: path, f: f}, nil
}

// discard removes the temporary file unless write renamed it into place.
func (o *checkpointOut) discard() {
	_ = o.f.Close()
	_ = os.Remove(o.f.Name())
}

// write writes c, signed with key, and renames the file into place.
func (o *checkpointOut) write(c eventstore.Checkpoint, key []byte) error {
	if err := eventstore.WriteCheckpoint(o.f, c, key); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := o.f.Sync(); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := o.f.Close(); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := os.Rename(o.f.Name(), o.path); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	_ = syncFolder(filepath.Dir(o.path))
	return nil
}

// syncFolder fsyncs dir, so that a name just renamed into it survives a crash.
func syncFolder(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
