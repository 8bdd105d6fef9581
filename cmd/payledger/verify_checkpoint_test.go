package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

const testVerifyKey = "0123456789abcdef0123456789abcdef-verify-test"

// checkpointLedger is a database with streams s-a (3 events), s-b (2) and s-c (1), a checkpoint of
// it written by `verify --checkpoint-out`, and the variables `verify` runs with.
type checkpointLedger struct {
	pool  *pgxpool.Pool
	store eventstore.Store
	vars  map[string]string
	file  string
}

func newCheckpointLedger(t *testing.T) *checkpointLedger {
	t.Helper()
	dbURL := pgtest.URL(t)
	l := &checkpointLedger{pool: pgtest.PoolFor(t, dbURL), file: filepath.Join(t.TempDir(), "ledger.checkpoint"),
		vars: map[string]string{"DATABASE_URL": dbURL, "EMBEDDED_POSTGRES": "off", "VERIFY_KEY": testVerifyKey, "DEV_DATA_DIR": t.TempDir()}}
	l.store = postgres.New(l.pool)
	for _, s := range []struct {
		stream string
		n      int
	}{{"s-a", 3}, {"s-b", 2}, {"s-c", 1}} {
		for i := range s.n {
			l.append(t, s.stream, fmt.Sprintf(`{"i":%d,"note":"café ☕ 支付"}`, i))
		}
	}
	if code, out := l.verify(t, "--checkpoint-out", l.file); code != 0 || !strings.Contains(out, "checkpoint written to "+l.file+": 3 streams, 6 events") {
		t.Fatalf("writing the checkpoint: exit %d %s", code, out)
	}
	if st, err := os.Stat(l.file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the checkpoint file: %v %v", st, err)
	}
	return l
}

func (l *checkpointLedger) append(t *testing.T, stream, data string) {
	t.Helper()
	if _, err := l.store.Append(context.Background(), stream, eventstore.Any(), eventstore.EventData{ID: uuid.New(), Type: "T", Data: []byte(data)}); err != nil {
		t.Fatal(err)
	}
}

// verify runs `payledger verify args...` and returns its exit status and stdout.
func (l *checkpointLedger) verify(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"verify"}, args...), env(l.vars), &out, &errOut)
	if key := l.vars["VERIFY_KEY"]; key != "" && strings.Contains(out.String()+errOut.String(), key) {
		t.Fatalf("VERIFY_KEY in verify's output: %s %s", out.String(), errOut.String())
	}
	return code, out.String() + errOut.String()
}

func (l *checkpointLedger) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := l.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// rehash rewrites stream from version `from` on with new data and recomputes the hash chain, as
// someone who can write the events table can: every chain still holds.
func (l *checkpointLedger) rehash(t *testing.T, stream string, from uint64) {
	t.Helper()
	evs, err := l.store.ReadStream(context.Background(), stream, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	var prev []byte
	for _, e := range evs {
		if e.Version >= from {
			e.Data, e.PrevHash = []byte(`{"i":0,"note":"forged"}`), prev
			e.Hash = eventstore.ComputeHash(prev, e)
			l.exec(t, `UPDATE events SET data = $1::json, prev_hash = $2, hash = $3 WHERE stream_id = $4 AND version = $5`, string(e.Data), e.PrevHash, e.Hash, stream, e.Version)
		}
		prev = e.Hash
	}
}

// TestVerifyCheckpointCatchesDeletedAndRewrittenEvents: the hash chains have no key, so a deleted
// last event, a deleted stream and a tail rewritten with its hashes recomputed all passed
// `verify`. Against a checkpoint signed with VERIFY_KEY each is reported, exit 1; without one
// they still pass (the documented limit); events appended after the checkpoint are fine.
func TestVerifyCheckpointCatchesDeletedAndRewrittenEvents(t *testing.T) {
	t.Parallel()
	tamperings := []struct {
		name   string
		tamper func(*testing.T, *checkpointLedger)
		want   string
	}{
		{"deleted last event", func(t *testing.T, l *checkpointLedger) {
			l.exec(t, `DELETE FROM events WHERE stream_id = 's-a' AND version = 3`)
		}, "BROKEN: stream s-a ends at version 2, the checkpoint recorded version 3"},
		{"deleted stream", func(t *testing.T, l *checkpointLedger) {
			l.exec(t, `DELETE FROM events WHERE stream_id = 's-b'`)
		}, "BROKEN: stream s-b is gone (the checkpoint recorded version 2)"},
		{"rehashed tail", func(t *testing.T, l *checkpointLedger) { l.rehash(t, "s-a", 2) },
			"BROKEN: stream s-a version 3 position"},
		{"rehashed tail, then appended to", func(t *testing.T, l *checkpointLedger) {
			l.rehash(t, "s-a", 3)
			l.store = postgres.New(l.pool) // a writer that reads the forged tail (no cached head)
			l.append(t, "s-a", `{"i":4}`)
		}, "differs from the checkpoint's"},
	}
	for _, tc := range tamperings {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newCheckpointLedger(t)
			if code, out := l.verify(t, "--checkpoint", l.file); code != 0 || !strings.Contains(out, "ok: 6 events, every hash chain holds; checkpoint "+l.file) {
				t.Fatalf("the untouched ledger: exit %d %s", code, out)
			}
			tc.tamper(t, l)
			if code, out := l.verify(t); code != 0 {
				t.Fatalf("without a checkpoint the chains hold (the limit): exit %d %s", code, out)
			}
			code, out := l.verify(t, "--checkpoint", l.file, "--checkpoint-out", l.file+".next")
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Fatalf("against the checkpoint: exit %d %s, want %q", code, out, tc.want)
			}
			if _, err := os.Stat(l.file + ".next"); !os.IsNotExist(err) {
				t.Fatalf("a checkpoint of a broken ledger was written: %v", err)
			}
		})
	}
}

// TestVerifyCheckpointAfterAppendsAndRolledForward: events and streams appended after the
// checkpoint pass (their chains are checked as before), and the same file rolls forward.
func TestVerifyCheckpointAfterAppendsAndRolledForward(t *testing.T) {
	t.Parallel()
	l := newCheckpointLedger(t)
	l.append(t, "s-c", `{"i":1}`)
	l.append(t, "s-d", `{"i":0}`)
	if code, out := l.verify(t, "--checkpoint", l.file, "--checkpoint-out", l.file); code != 0 ||
		!strings.Contains(out, "ok: 8 events") || !strings.Contains(out, "checkpoint written to "+l.file+": 4 streams, 8 events") {
		t.Fatalf("after appends: exit %d %s", code, out)
	}
	l.exec(t, `DELETE FROM events WHERE stream_id = 's-d'`) // covered by the rolled checkpoint
	if code, out := l.verify(t, "--checkpoint", l.file); code != 1 || !strings.Contains(out, "stream s-d is gone") ||
		!strings.Contains(out, "the log holds 7 events, the checkpoint recorded 8") {
		t.Fatalf("a stream of the rolled checkpoint deleted: exit %d %s", code, out)
	}
}

// TestVerifyCheckpointRefusesAWrongKeyOrAnEditedFile: a checkpoint is used only when VERIFY_KEY
// signed it exactly as it is: another key, an edited line (a lowered version, to hide a deleted
// event) or a missing signature is refused (exit 1, REFUSED), and a missing or short key is an
// error before anything is read.
func TestVerifyCheckpointRefusesAWrongKeyOrAnEditedFile(t *testing.T) {
	t.Parallel()
	l := newCheckpointLedger(t)
	l.vars["VERIFY_KEY"] = strings.Repeat("k", 40)
	if code, out := l.verify(t, "--checkpoint", l.file); code != 1 || !strings.Contains(out, "REFUSED: checkpoint "+l.file+": checkpoint signature does not match") {
		t.Fatalf("another key: exit %d %s", code, out)
	}
	l.vars["VERIFY_KEY"] = testVerifyKey
	orig, err := os.ReadFile(l.file)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(orig, []byte(`"stream":"s-a","version":3`), []byte(`"stream":"s-a","version":2`), 1)
	if bytes.Equal(edited, orig) {
		t.Fatalf("no s-a line in the checkpoint:\n%s", orig)
	}
	unsigned := orig[:bytes.LastIndex(orig[:len(orig)-1], []byte("\n"))+1]
	for name, content := range map[string][]byte{"edited": edited, "unsigned": unsigned, "empty": nil} {
		if err := os.WriteFile(l.file, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out := l.verify(t, "--checkpoint", l.file); code != 1 || !strings.Contains(out, "REFUSED: checkpoint") {
			t.Fatalf("%s file: exit %d %s", name, code, out)
		}
	}
	for _, key := range []string{"", "short"} {
		l.vars["VERIFY_KEY"] = key
		if code, out := l.verify(t, "--checkpoint-out", l.file+".x"); code != 1 || !strings.Contains(out, "need VERIFY_KEY") {
			t.Fatalf("VERIFY_KEY %q: exit %d %s", key, code, out)
		}
	}
	if code, out := l.verify(t, "--stream", "s-a", "--checkpoint", l.file); code != 2 {
		t.Fatalf("--stream with --checkpoint: exit %d %s", code, out)
	}
	l.vars["VERIFY_KEY"] = testVerifyKey
	if code, out := l.verify(t, "--checkpoint", filepath.Join(t.TempDir(), "none")); code != 1 {
		t.Fatalf("a missing checkpoint file: exit %d %s", code, out)
	}
}

// walkForbidden fails the test if the log is read.
type walkForbidden struct {
	eventstore.Store
	t *testing.T
}

func (w walkForbidden) Head(context.Context) (eventstore.Position, error) {
	w.t.Error("the log was walked")
	return eventstore.Start, nil
}

// TestVerifyCheckpointOutThatCannotBeWrittenFailsFirst: a --checkpoint-out path that cannot be
// written (a folder that does not exist) was found only after the whole walk, hours on a large
// ledger; it now fails before the log is read.
func TestVerifyCheckpointOutThatCannotBeWrittenFailsFirst(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	o := verifyOptions{checkpointOut: filepath.Join(t.TempDir(), "no-such-folder", "ledger.checkpoint"), key: []byte(testVerifyKey), now: time.Now}
	err := verifyWith(context.Background(), walkForbidden{memory.New(time.Now), t}, o, zerolog.Nop(), &out)
	if err == nil || !strings.Contains(err.Error(), "checkpoint-out") {
		t.Fatalf("an unwritable --checkpoint-out: %v %s", err, out.String())
	}
}
