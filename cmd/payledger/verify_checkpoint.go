package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/payledger/payledger/eventstore"
)

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
