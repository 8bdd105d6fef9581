// Package journal is a durable local file of appends accepted while the event store could not
// be reached. Each entry is one JSON line, written and fsynced before the request is answered;
// Drain replays entries into the store (idempotent: events keep their ids) and empties the file
// once every entry is stored.
package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/payledger/payledger/eventstore"
)

// Entry is one journaled append, with side data its replay needs first (e.g. a sealed webhook
// key), keyed by kind.
type Entry struct {
	Stream string                     `json:"stream"`
	Events []eventstore.EventData     `json:"events"`
	Side   map[string]json.RawMessage `json:"side,omitempty"`
	At     int64                      `json:"at"`
}

// Journal is the file. Safe for concurrent use.
type Journal struct {
	mu   sync.Mutex
	path string
}

// Open makes sure the journal's folder exists and returns the journal at path.
func Open(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	_ = f.Close()
	return &Journal{path: path}, nil
}

// Append writes e durably: when it returns nil the entry survives a crash.
func (j *Journal) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	f, err := os.OpenFile(j.path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("journal write: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("journal fsync: %w", err)
	}
	return nil
}

// Pending returns the journaled entries. A torn last line (a crash during the write, never
// acknowledged) is ignored.
func (j *Journal) Pending() ([]Entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.read()
}

func (j *Journal) read() ([]Entry, error) {
	b, err := os.ReadFile(j.path)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // the torn tail of an unacknowledged write
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Drain applies every entry in order with apply (which must be idempotent) and empties the
// journal when all succeeded. It holds the journal for the whole drain, so no entry appended
// meanwhile can be lost by the truncation. It returns how many entries were applied.
func (j *Journal) Drain(ctx context.Context, apply func(context.Context, Entry) error) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	entries, err := j.read()
	if err != nil || len(entries) == 0 {
		return 0, err
	}
	for i, e := range entries {
		if err := apply(ctx, e); err != nil {
			return i, fmt.Errorf("replay journal entry %d of %d: %w", i+1, len(entries), err)
		}
	}
	if err := os.Truncate(j.path, 0); err != nil {
		return len(entries), fmt.Errorf("empty journal: %w", err)
	}
	return len(entries), nil
}
