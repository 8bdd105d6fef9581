// Package journal is a durable local file of appends accepted while the event store could not
// be reached. Each entry is one JSON line, written and fsynced before the request is answered;
// Drain replays entries into the store (idempotent: events keep their ids) and removes from the
// file exactly the entries that were stored whole, so one entry that cannot be stored never
// holds back the others and nothing acknowledged is dropped.
package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/gofrs/flock"

	"github.com/payledger/payledger/eventstore"
)

// SideWebhookKey is the side-data kind of a sealed webhook signing key (SealedKey).
const SideWebhookKey = "webhookKey"

// Entry is one journaled append, with side data its replay needs first (e.g. a sealed webhook
// key), keyed by kind.
type Entry struct {
	Stream string                     `json:"stream"`
	Events []eventstore.EventData     `json:"events"`
	Side   map[string]json.RawMessage `json:"side,omitempty"`
	At     int64                      `json:"at"`
}

// SealedKey is side data: a receipt's webhook signing key, sealed with SECRETS_KEY, so the
// journal never holds a secret in clear.
type SealedKey struct {
	ReceiptID string `json:"receiptId"`
	Nonce     []byte `json:"nonce"`
	Sealed    []byte `json:"sealed"`
}

// WithSealedKey returns e carrying k as its webhook-key side data.
func (e Entry) WithSealedKey(k SealedKey) Entry {
	b, _ := json.Marshal(k) // byte slices and a string: cannot fail
	e.Side = map[string]json.RawMessage{SideWebhookKey: b}
	return e
}

// Journal is the file. Safe for concurrent use.
type Journal struct {
	mu      sync.Mutex // the file and the index: appends and the rewrite after a drain
	drain   sync.Mutex // one drain at a time
	path    string
	pending map[string]Entry // by stream: what is in the file, for reads before the replay
	// broken is set when a failed write could not be cut off again: the file's end is a torn
	// line that the next append would be glued to, so no append is taken until a restart (Open
	// cuts it).
	broken error
	// write writes b to f (f.Write; a test's short write stands in for a full disk).
	write func(f *os.File, b []byte) (int, error)
	// lock is the exclusive lock on path+".lock", held from Open to Close: one process per
	// journal (a second one's Open cut an entry the first was writing, and their drains rewrote
	// the file over each other's appends). nil once closed.
	lock *flock.Flock
	// maxBytes caps the file (DefaultMaxBytes).
	maxBytes int64
}

// DefaultMaxBytes caps the journal's file. Every entry is also held in memory (Lookup), every
// replay pass reads and parses the whole file, and a restart loads it all before serving: an
// outage long and busy enough grew it without bound until the process ran out of memory, and its
// restart, loading the same file, ran out again. Past the cap an order is refused (503) as when
// the disk is full; 256 MiB is some 200,000 orders.
const DefaultMaxBytes = 256 << 20

// ErrFull is Append's error when the entry would take the journal past its cap.
var ErrFull = errors.New("journal full")

// ErrStreamPending is Append's error when the journal already holds another entry for the same
// stream: a receipt id a caller chose twice while the datastore was down. Both were acknowledged,
// a status read showed the second while the replay stored the first, and the second then failed
// for ever as a receipt id taken by another.
var ErrStreamPending = errors.New("another entry of this stream waits in the journal")

// ErrInUse is Open's error when another process (or another Open in this one) holds the journal.
var ErrInUse = errors.New("journal in use by another process")

// Open makes sure the journal's folder exists, takes the journal's exclusive lock (ErrInUse when
// another process holds it) and returns the journal at path; Close releases the lock. A torn last
// line (a crash during a write, never acknowledged) is cut off, so the next append starts a line
// of its own instead of being glued to the torn one. The lock is an flock on path+".lock" (the
// journal itself is replaced by each drain's rewrite): it dies with its process, so the lock file
// a crash leaves behind never blocks a restart.
func Open(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal folder: %w", err)
	}
	lock := flock.New(path+".lock", flock.SetPermissions(0o600))
	locked, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock journal %s: %w", path, err)
	}
	if !locked {
		_ = lock.Close()
		return nil, fmt.Errorf("%w: %s is locked (%s): each serve needs a JOURNAL_PATH of its own", ErrInUse, path, lock.Path())
	}
	j, err := open(path)
	if err != nil {
		_ = lock.Unlock()
		return nil, err
	}
	j.lock = lock
	return j, nil
}

// open reads the journal at path, cutting a torn tail; the caller holds the lock.
func open(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_RDWR, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	_ = f.Close()
	if created {
		// An entry's fsync makes its bytes durable, not the new file's name in its folder: a
		// crash could lose a fresh journal, acknowledged entries and all. The folder (and its
		// own, which MkdirAll may just have made) are synced once, when the file is new; best
		// effort, as after a drain's rename (some systems cannot sync a folder).
		dir := filepath.Dir(path)
		_, _ = syncDir(dir), syncDir(filepath.Dir(dir))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	if end := bytes.LastIndexByte(b, '\n') + 1; end < len(b) {
		if err := os.Truncate(path, int64(end)); err != nil {
			return nil, fmt.Errorf("cut the journal's torn tail: %w", err)
		}
	}
	j := &Journal{path: path, pending: map[string]Entry{}, write: (*os.File).Write, maxBytes: DefaultMaxBytes}
	lines, _, err := j.snapshot()
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		if e, ok := l.decode(); ok {
			j.pending[e.Stream] = e
		}
	}
	return j, nil
}

// errClosed refuses appends and drains after Close: another process may hold the lock by then.
var errClosed = errors.New("journal closed")

// Close releases the journal's lock (idempotent). The journal takes no append or drain after it.
func (j *Journal) Close() error {
	j.drain.Lock() // a drain in flight finishes its rewrite first
	defer j.drain.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lock == nil {
		return nil
	}
	err := j.lock.Unlock()
	j.lock, j.broken = nil, errClosed
	return err
}

// Lookup returns the journaled entry of stream, while it waits in the journal.
func (j *Journal) Lookup(stream string) (Entry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.pending[stream]
	return e, ok
}

// Append writes e durably: when it returns nil the entry survives a crash. A write or fsync that
// fails (a full disk) is cut off again, so that the next entry starts a line of its own: glued to
// a torn one, an acknowledged entry would read as garbage. Errors: ErrFull, ErrStreamPending
// (another entry of e's stream waits; the same entry again is a no-op), write errors.
func (j *Journal) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if errors.Is(j.broken, errClosed) {
		return j.broken
	}
	if j.broken != nil {
		return fmt.Errorf("journal: an earlier write could not be undone: %w", j.broken)
	}
	if prev, ok := j.pending[e.Stream]; ok {
		if sameEvents(prev, e) {
			return nil // this very entry is durable already
		}
		return fmt.Errorf("journal: %w: %s (it is stored first, once the datastore answers)", ErrStreamPending, e.Stream)
	}
	f, err := os.OpenFile(j.path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if st.Size()+int64(len(line))+1 > j.maxBytes {
		return fmt.Errorf("%w: %s holds %d bytes, the cap is %d; it empties as the replay stores its entries", ErrFull, j.path, st.Size(), j.maxBytes)
	}
	if _, err := j.write(f, append(line, '\n')); err != nil {
		return j.undo(f, st.Size(), fmt.Errorf("journal write: %w", err))
	}
	if err := f.Sync(); err != nil {
		return j.undo(f, st.Size(), fmt.Errorf("journal fsync: %w", err))
	}
	j.pending[e.Stream] = e
	return nil
}

// sameEvents reports whether a and b hold the same events, by id.
func sameEvents(a, b Entry) bool {
	if len(a.Events) != len(b.Events) {
		return false
	}
	for i := range a.Events {
		if a.Events[i].ID != b.Events[i].ID {
			return false
		}
	}
	return true
}

// undo cuts f back to size after a failed append, and returns failed; when the cut fails too, the
// journal takes no more appends (broken).
func (j *Journal) undo(f *os.File, size int64, failed error) error {
	if err := f.Truncate(size); err != nil {
		j.broken = fmt.Errorf("%w; cutting it off: %v", failed, err)
		return j.broken
	}
	return failed
}

// Pending returns the journaled entries.
func (j *Journal) Pending() ([]Entry, error) {
	lines, _, err := j.snapshot()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(lines))
	for _, l := range lines {
		if e, ok := l.decode(); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// Len is the number of entries in the journal (those Lookup finds), without reading the file.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.pending)
}

// line is one whole line of the file, decoded only when needed: a replay pass while the store is
// down decoded every entry (and again for its figures) every 2 s, a core's work for a full
// journal through the outage.
type line []byte // with its newline

// decode returns the line's entry; false for a line that is not one (kept in the file, never
// applied, never dropped).
func (l line) decode() (Entry, bool) {
	var e Entry
	err := json.Unmarshal(l, &e)
	return e, err == nil
}

// snapshot reads the whole lines of the file and the file's size at that moment.
func (j *Journal) snapshot() ([]line, int, error) {
	j.mu.Lock()
	b, err := os.ReadFile(j.path)
	j.mu.Unlock()
	if err != nil {
		return nil, 0, fmt.Errorf("read journal: %w", err)
	}
	if len(b) == 0 {
		return nil, 0, nil // the usual case: the replayer looks twice per interval
	}
	// A line that does not parse is kept as it is: Open cut the torn tail of a crash, and Append
	// cuts a failed write, so this is damage a person must look at, and dropping it could drop an
	// acknowledged entry. The lines are slices of b, read afresh: no copies.
	var out []line
	rest := b
	for len(rest) > 0 {
		end := bytes.IndexByte(rest, '\n') + 1
		if end == 0 {
			break // the torn tail of a write that could not be undone (broken): left where it is
		}
		out = append(out, line(rest[:end:end]))
		rest = rest[end:]
	}
	return out, len(b) - len(rest), nil
}

// ErrStoreDown, from Drain's apply, keeps that entry and every one behind it for the next drain,
// without looking at them.
var ErrStoreDown = errors.New("event store unavailable")

// Drain applies every entry in order with apply (which must be idempotent), going on past an
// entry whose apply fails (but for ErrStoreDown), then removes from the file the entries that were applied. Failed
// entries stay for the next drain, and entries appended meanwhile are kept: appends are not held
// up while the entries are replayed. It returns how many entries were applied and, when some
// failed, an error naming how many and the first failure.
func (j *Journal) Drain(ctx context.Context, apply func(context.Context, Entry) error) (int, error) {
	j.drain.Lock()
	defer j.drain.Unlock()
	j.mu.Lock()
	closed := errors.Is(j.broken, errClosed)
	j.mu.Unlock()
	if closed {
		return 0, errClosed
	}
	lines, size, err := j.snapshot()
	if err != nil || len(lines) == 0 {
		return 0, err
	}
	var kept []line
	var stored []string // streams of the applied entries
	var firstErr error
	for i, l := range lines {
		e, ok := l.decode()
		if !ok {
			if firstErr == nil {
				firstErr = fmt.Errorf("journal line %d of %d is not an entry (kept for a person to look at)", i+1, len(lines))
			}
			kept = append(kept, l)
			continue
		}
		if err := apply(ctx, e); err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("replay journal entry %d of %d: %w", i+1, len(lines), err)
			}
			if errors.Is(err, ErrStoreDown) { // this entry and the rest wait for the next pass
				kept = append(kept, lines[i:]...)
				break
			}
			kept = append(kept, l)
			continue
		}
		stored = append(stored, e.Stream)
	}
	applied := len(stored)
	if applied > 0 {
		if err := j.keepOnly(kept, size, stored); err != nil {
			return applied, err
		}
	}
	if firstErr != nil {
		return applied, fmt.Errorf("%d of %d journal entries not stored yet: %w", len(kept), len(lines), firstErr)
	}
	return applied, nil
}

// keepOnly rewrites the journal as kept followed by whatever was appended after the first size
// bytes were read. The new file is synced and renamed into place, so a crash leaves either the
// old journal or the new one, never a mix.
func (j *Journal) keepOnly(kept []line, size int, stored []string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	defer func() {
		for _, s := range stored {
			delete(j.pending, s)
		}
	}()
	b, err := os.ReadFile(j.path)
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	if len(b) < size {
		// Only appends grow the file while a drain runs, and only a drain shrinks it: another
		// process drained it (two instances given one JOURNAL_PATH). Rewriting from this drain's
		// view could drop what that one kept; the entries just applied stay, to be applied again
		// (idempotently) by the next drain.
		stored = nil
		return fmt.Errorf("journal %s shrank during a drain (%d bytes, %d read before): is JOURNAL_PATH shared with another process?", j.path, len(b), size)
	}
	tmp := j.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("rewrite journal: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, k := range kept {
		_, _ = w.Write(k)
	}
	_, _ = w.Write(b[size:])
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("rewrite journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("rewrite journal fsync: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("rewrite journal: %w", err)
	}
	if err := os.Rename(tmp, j.path); err != nil {
		return fmt.Errorf("replace journal: %w", err)
	}
	_ = syncDir(filepath.Dir(j.path))
	return nil
}

// syncDir fsyncs the folder dir, so that the names in it (a new or renamed journal) survive a
// crash. A variable: a test records the calls.
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
