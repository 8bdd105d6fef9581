package readmodels

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"
)

// Reads that tolerate a little staleness (lists, exports, search, the payment page's reads of a
// receipt) may go to a replica (DATABASE_REPLICA_URL, DESIGN 10); a caller who has just written
// must still see the write.
const (
	// ReplicaWait bounds how long a caller's read after its own write waits for the replica to
	// replay the primary's position; past it the read goes to the primary.
	ReplicaWait = 200 * time.Millisecond
	// recentWrite is how long after a write its caller's reads are checked against the
	// primary's position. A healthy replica is less than a probe period behind (replicaProbe),
	// so by then it has the write.
	recentWrite = 10 * time.Second
	// replicaProbe is how often the replica's health is checked: it answers, and it has replayed
	// what the primary had written at the previous probe.
	replicaProbe = time.Second
	// maxWriters bounds the memory of recent writers. Past it, writers older than recentWrite
	// are forgotten; if that leaves it over half full, everyone is, and until recentWrite has
	// passed every caller counts as a writer (its reads wait for the replica or go to the primary).
	maxWriters = 100_000
	// replayPoll is how often a waiting read asks the replica how far it has replayed.
	replayPoll = 5 * time.Millisecond
)

// ReplicaReads chooses, per request, the pool of the reads that tolerate staleness. A caller is
// known as a writer by the instance it wrote through: behind a proxy that spreads one caller's
// requests over instances, a read on another instance right after a write may miss it for the
// replica's replay lag (milliseconds; at most a probe period while the replica counts healthy).
type ReplicaReads struct {
	primary, replica *pgxpool.Pool
	now              func() time.Time
	log              zerolog.Logger
	healthy          atomic.Bool
	used, waited     atomic.Uint64 // reads sent to the replica; of them, after a wait
	fellBack         atomic.Uint64 // reads of recent writers sent to the primary
	prev             position      // the primary's position at the previous probe (zero when not known); Probe's alone

	mu       sync.Mutex
	writers  map[string]time.Time // caller -> when it last wrote (this instance)
	forgotAt time.Time            // when writers was last emptied with recent writers in it
}

// WalletCaller names a merchant as a caller of For and Wrote, whoever acts for it: its key, its
// session, or a webhook sent to it (a read and the write it must see are matched by this name).
func WalletCaller(wallet string) string { return "wallet:" + wallet }

// NewReplicaReads routes stale-tolerant reads to replica once Run has found it healthy.
func NewReplicaReads(primary, replica *pgxpool.Pool, now func() time.Time, log zerolog.Logger) *ReplicaReads {
	return &ReplicaReads{primary: primary, replica: replica, now: now, log: log, writers: map[string]time.Time{}}
}

type readPoolKey struct{}

// ReadPool is the pool a stale-tolerant read on ctx uses: the one ReplicaReads.For chose for the
// request, else def (no replica configured, or a route that must read the primary).
func ReadPool(ctx context.Context, def *pgxpool.Pool) *pgxpool.Pool {
	if p, ok := ctx.Value(readPoolKey{}).(*pgxpool.Pool); ok {
		return p
	}
	return def
}

// Wrote records that callers (a wallet, a client address) are writing now: their reads in the
// next recentWrite wait for the replica to have replayed the primary's position.
func (r *ReplicaReads) Wrote(callers ...string) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.writers)+len(callers) > maxWriters {
		r.forgetWriters(now)
	}
	for _, c := range callers {
		r.writers[c] = now
	}
}

// forgetWriters makes room in the full memory of writers: those older than recentWrite go. A
// memory still over half full of recent writers (a flood) is emptied, and forgotAt makes every
// caller count as a writer for recentWrite, so that none of the forgotten reads the replica
// before it has their writes. Called with mu held.
func (r *ReplicaReads) forgetWriters(now time.Time) {
	for c, at := range r.writers {
		if now.Sub(at) > recentWrite {
			delete(r.writers, c)
		}
	}
	if len(r.writers) > maxWriters/2 {
		clear(r.writers)
		r.forgotAt = now
	}
}

// wroteRecently reports whether any of callers wrote in the last recentWrite, or may have (the
// memory of writers was emptied within recentWrite).
func (r *ReplicaReads) wroteRecently(callers []string) bool {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.forgotAt.IsZero() && now.Sub(r.forgotAt) <= recentWrite {
		return true
	}
	for _, c := range callers {
		if at, ok := r.writers[c]; ok && now.Sub(at) <= recentWrite {
			return true
		}
	}
	return false
}

// For returns ctx carrying the pool caller's stale-tolerant reads use: the replica when it is
// healthy and, if caller wrote recently, has replayed the primary's current position within
// ReplicaWait; else the primary.
func (r *ReplicaReads) For(ctx context.Context, callers ...string) context.Context {
	return context.WithValue(ctx, readPoolKey{}, r.choose(ctx, callers))
}

func (r *ReplicaReads) choose(ctx context.Context, callers []string) *pgxpool.Pool {
	if !r.healthy.Load() {
		return r.primary
	}
	if !r.wroteRecently(callers) {
		r.used.Add(1)
		return r.replica
	}
	if err := r.awaitReplay(ctx); err != nil {
		r.fellBack.Add(1)
		return r.primary
	}
	r.used.Add(1)
	r.waited.Add(1)
	return r.replica
}

// errBehind: the replica did not replay the primary's position in time.
var errBehind = errors.New("replica behind the primary")

// awaitReplay waits up to ReplicaWait until the replica has replayed the primary's current WAL
// insert position, which is at or after every write acknowledged so far. Not the write position
// (pg_current_wal_lsn): the projectors commit with synchronous_commit off, so a read-model row
// the caller's answer waited for may be visible on the primary while its commit record is not
// written out yet.
func (r *ReplicaReads) awaitReplay(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ReplicaWait)
	defer cancel()
	target, err := r.primaryAt(ctx)
	if err != nil {
		return err
	}
	for {
		done, err := r.replayed(ctx, target)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return errBehind
		case <-time.After(replayPoll):
		}
	}
}

// position is where the primary was: its WAL insert position, and which server and database it
// is (serverIdentity).
type position struct{ lsn, server string }

// serverIdentity names the server and database a connection reached: the same on every
// connection to them, different on another server (its postmaster started at another moment) or
// another database of the same server.
const serverIdentity = `extract(epoch FROM pg_postmaster_start_time())::text || ' ' || current_database()`

// primaryAt reads the primary's current position.
func (r *ReplicaReads) primaryAt(ctx context.Context) (position, error) {
	var p position
	if err := r.primary.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn()::text, `+serverIdentity).Scan(&p.lsn, &p.server); err != nil {
		return position{}, fmt.Errorf("read the primary's position: %w", err)
	}
	return p, nil
}

// errPromoted: the replica URL reached a server that is not in recovery and is not the primary
// (a standby promoted on its own, such as a cloud "promote read replica", or a URL naming another
// database): it no longer receives the primary's writes, and whatever it answers is older every
// second.
var errPromoted = errors.New("the replica is not in recovery and is not the primary's server (promoted on its own?): it no longer follows the primary")

// replayed reports whether the replica has replayed the WAL up to at. A replica URL that reached
// the primary itself (prefer-standby with no standby left, as after a failover) has nothing to
// replay: it is current. A server out of recovery that is not the primary's is errPromoted:
// "not in recovery" alone made a standby promoted on its own count current for ever, and the
// lists, exports and search read a copy that the primary's writes never reach again.
func (r *ReplicaReads) replayed(ctx context.Context, at position) (bool, error) {
	var standby, ok bool
	var server string
	err := r.replica.QueryRow(ctx, `SELECT pg_is_in_recovery(), coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false), `+serverIdentity,
		at.lsn).Scan(&standby, &ok, &server)
	if err != nil {
		return false, fmt.Errorf("read the replica's position: %w", err)
	}
	if !standby {
		if server != at.server {
			return false, errPromoted
		}
		return true, nil
	}
	return ok, nil
}

// Stats are the reads sent to the replica (of them, after waiting for a caller's write) and the
// reads of recent writers sent to the primary because the replica was behind.
func (r *ReplicaReads) Stats() (replica, waited, primary uint64) {
	return r.used.Load(), r.waited.Load(), r.fellBack.Load()
}

// Healthy reports whether reads go to the replica at all.
func (r *ReplicaReads) Healthy() bool { return r.healthy.Load() }

// ProbeInterval is how often the replica is probed (Probe).
const ProbeInterval = replicaProbe

// Run probes the replica every replicaProbe until ctx ends (Probe, in a loop of its own).
func (r *ReplicaReads) Run(ctx context.Context) error {
	t := time.NewTicker(replicaProbe)
	defer t.Stop()
	for {
		_, _ = r.Probe(ctx)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Probe is one probe, for a worker that runs it every ProbeInterval and reports its outcome
// (serve's /healthz): the replica is healthy while it answers and has replayed what the primary
// had written at the previous probe (it is less than a probe period behind); otherwise every read
// goes to the primary, and Probe says why, so that a replica down or behind for long is shown as
// a stuck worker rather than only a log line. The first probe measures nothing (no error, no
// progress). Probes run one at a time.
func (r *ReplicaReads) Probe(ctx context.Context) (healthy bool, err error) {
	cur, err := r.probe(ctx, r.prev)
	r.prev = cur
	healthy = err == nil
	if was := r.healthy.Swap(healthy); was != healthy {
		ev := r.log.Info()
		if !healthy {
			ev = r.log.Warn()
		}
		ev.Bool("healthy", healthy).AnErr("reason", err).Msg("replica reads")
	}
	if errors.Is(err, errUnmeasured) {
		return false, nil
	}
	return healthy, err
}

// errUnmeasured: there is no position of the previous probe to compare the replica with (the
// first probe, or the primary did not answer the previous one).
var errUnmeasured = errors.New("replica lag not measured yet")

// probe reads the primary's position, which the next probe compares the replica with, and
// reports whether the replica has replayed prev. The primary's position is read whatever the
// replica answers: a replica back from an outage is compared with where the primary was a probe
// period ago, never with a position from before the outage (or 0/0 at start), which any replica
// that answers has passed, however far behind it is.
func (r *ReplicaReads) probe(ctx context.Context, prev position) (cur position, err error) {
	ctx, cancel := context.WithTimeout(ctx, replicaProbe)
	defer cancel()
	if cur, err = r.primaryAt(ctx); err != nil {
		return position{}, err
	}
	if prev.lsn == "" {
		return cur, errUnmeasured
	}
	ok, err := r.replayed(ctx, position{lsn: prev.lsn, server: cur.server}) // the primary's server now (a failover moves it)
	switch {
	case err != nil:
		return cur, err
	case !ok:
		return cur, errBehind
	}
	return cur, nil
}
