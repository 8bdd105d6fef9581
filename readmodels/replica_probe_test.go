package readmodels

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// fakeStandby is a replica simulated on the test database: a pool whose search_path puts schema
// standby before pg_catalog, where pg_is_in_recovery says true (and counts the probes) and
// pg_last_wal_replay_lsn answers the server's own position ("current"), a frozen one
// ("behind": the replica stopped replaying there) or an error ("down").
type fakeStandby struct {
	t       *testing.T
	primary *pgxpool.Pool
	replica *pgxpool.Pool
}

func newFakeStandby(t *testing.T) *fakeStandby {
	t.Helper()
	url := pgtest.URL(t)
	primary := pgtest.PoolFor(t, url)
	_, err := primary.Exec(context.Background(), `
		CREATE SCHEMA standby;
		CREATE SEQUENCE standby.probes;
		CREATE TABLE standby.mode (m text NOT NULL, frozen pg_lsn);
		INSERT INTO standby.mode VALUES ('current', NULL);
		CREATE TABLE standby.wal (n int);
		CREATE FUNCTION standby.pg_is_in_recovery() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
		BEGIN
			PERFORM nextval('standby.probes');
			IF (SELECT m FROM standby.mode) = 'down' THEN
				RAISE EXCEPTION 'the standby is down';
			END IF;
			RETURN true;
		END $$;
		CREATE FUNCTION standby.pg_last_wal_replay_lsn() RETURNS pg_lsn LANGUAGE sql VOLATILE AS $$
			SELECT CASE WHEN m = 'current' THEN pg_catalog.pg_current_wal_insert_lsn() ELSE frozen END FROM standby.mode
		$$;`)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeStandby{t: t, primary: primary, replica: pgtest.PoolFor(t, url+"&search_path=standby,pg_catalog,public")}
}

// set switches the replica's mode; "down" and "behind" freeze its replay where the primary is now,
// and the primary then writes more, so that a frozen replica is behind it.
func (f *fakeStandby) set(mode string) {
	f.t.Helper()
	ctx := context.Background()
	_, err := f.primary.Exec(ctx, `UPDATE standby.mode SET m = $1,
		frozen = CASE WHEN $1 = 'current' THEN NULL ELSE coalesce(frozen, pg_catalog.pg_current_wal_insert_lsn()) END`, mode)
	if err == nil && mode != "current" {
		_, err = f.primary.Exec(ctx, `INSERT INTO standby.wal SELECT generate_series(1, 100)`)
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

// probes is how many times the replica was probed so far.
func (f *fakeStandby) probes() int64 {
	var n int64
	if err := f.primary.QueryRow(context.Background(), `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM standby.probes`).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// awaitProbes waits until n more probes have run.
func (f *fakeStandby) awaitProbes(n int64) {
	f.t.Helper()
	from := f.probes()
	wait.Until(f.t, "replica probes", 10*time.Second, func() bool { return f.probes() >= from+n })
}

// run starts the replica reads' probe and returns it with its log.
func (f *fakeStandby) run() (*ReplicaReads, *syncbuf.Buffer) {
	logs := &syncbuf.Buffer{}
	r := NewReplicaReads(f.primary, f.replica, time.Now, zerolog.New(logs))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	f.t.Cleanup(func() { cancel(); <-done })
	return r, logs
}

// A replica far behind when the instance starts is never used (stop 61: the first probe compared
// the replica with position 0/0, so any replica that answered counted healthy, and for a probe
// period every stale-tolerant read of a caller who had not written went to it, however old).
func TestReplicaFarBehindAtStartIsNotUsed(t *testing.T) {
	t.Parallel()
	f := newFakeStandby(t)
	f.set("behind")
	r, logs := f.run()
	f.awaitProbes(4)
	if r.Healthy() || strings.Contains(logs.String(), `"healthy":true`) {
		t.Fatalf("a replica behind the primary was used; log:\n%s", logs)
	}
	f.set("current")
	wait.Until(t, "the replica, caught up, used", 10*time.Second, r.Healthy)
}

// A replica back from an outage but behind is not used until it catches up (stop 61: while it
// was down the probe kept the primary's position of its last good probe, so the first answer
// after the outage was compared with a position from before it and counted healthy, and the
// replica's reads were as old as the outage for a probe period).
func TestReplicaBackFromAnOutageBehindIsNotUsed(t *testing.T) {
	t.Parallel()
	f := newFakeStandby(t)
	r, logs := f.run()
	wait.Until(t, "the replica used", 10*time.Second, r.Healthy)
	f.set("down")
	wait.Until(t, "the replica, down, left", 10*time.Second, func() bool { return !r.Healthy() })
	f.awaitProbes(2) // the primary wrote meanwhile (set), and the probes saw its position
	seen := len(logs.String())
	f.set("behind")
	f.awaitProbes(4)
	if after := logs.String()[seen:]; r.Healthy() || strings.Contains(after, `"healthy":true`) {
		t.Fatalf("a replica back from an outage but behind was used; log since it answered again:\n%s", after)
	}
	f.set("current")
	wait.Until(t, "the replica, caught up, used again", 10*time.Second, r.Healthy)
}
