package cache

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"
)

// invalidatable is a cache that an Invalidations listener keeps honest.
type invalidatable interface {
	invalidate(payload string)
	setListening(on bool)
}

// The listener's probe: every ProbeEvery it sends a NOTIFY on its own channel through the pool
// (another connection, as a change's NOTIFY is sent), which must come back within ProbeWithin.
// A connection can stay open and hear nothing: after a failover behind pgbouncer or HAProxy it is
// still on the old server, or its session was dropped without a reset. Before, the caches trusted
// it until TCP keepalive ended it, and a revoked key's streams ended after their 30 s safety read
// instead of within DESIGN 10's 5 s. A silent listener is now found within ProbeEvery +
// ProbeWithin, about as soon as the streams' 2 s poll without a listener.
const (
	ProbeEvery  = time.Second
	ProbeWithin = 2 * time.Second
)

// ConnectWithin bounds the listener's connect and its LISTENs together. Without a bound of its
// own only serve's context did: a connection to a lost server (an idle one the pool pings before
// handing it out, whose ping nothing answers, or a LISTEN sent on it) held the reconnection until
// TCP gave up, while the database was reachable on a new connection. A connect is bounded by
// ConnectTimeout (3 s in serve), so a healthy server connects well within this.
const ConnectWithin = 5 * time.Second

// ErrSilent is a listener's failure to hear its own probe in time.
var ErrSilent = errors.New("cache invalidations: the listener hears nothing")

// Invalidations listens on one connection for the channels of every registered cache. The caches
// are on only while the connection is proven to hear: its probe (ProbeEvery) has come back. A
// connection that fails (or fails its probe) turns them off, as when no listener is configured,
// is closed, and is replaced after retry; each failure is logged and reported (Failing).
type Invalidations struct {
	pool  *pgxpool.Pool
	mu    sync.Mutex
	subs  map[string][]invalidatable
	retry time.Duration
	// Log receives the listener's failures (an error for a silent one) and its recoveries.
	Log zerolog.Logger

	probeChannel            string // this instance's own: other instances' probes are not heard here
	probeEvery, probeWithin time.Duration
	connectWithin           time.Duration
	now                     func() time.Time

	// The run of failures since the listener last heard its probe (Failing).
	failMu                 sync.Mutex
	failingSince, failedAt time.Time
	failErr                error
	loggedAt               time.Time
	loggedSilent           bool // a silence of this run was logged (as an error)
}

// NewInvalidations returns a listener on pool; caches registered with it stay off until Run
// connects and hears its first probe.
func NewInvalidations(pool *pgxpool.Pool) *Invalidations {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Invalidations{pool: pool, subs: map[string][]invalidatable{}, retry: time.Second,
		probeChannel: "payledger_cache_probe_" + hex.EncodeToString(b[:]), probeEvery: ProbeEvery, probeWithin: ProbeWithin,
		connectWithin: ConnectWithin, now: time.Now}
}

// Register has c invalidated by NOTIFYs on channel. Call it before Run.
func (i *Invalidations) Register(channel string, c invalidatable) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.subs[channel] = append(i.subs[channel], c)
}

func (i *Invalidations) all(on bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	for _, cs := range i.subs {
		for _, c := range cs {
			c.setListening(on)
		}
	}
}

// Run listens until ctx ends; after a failure the caches are off until it has reconnected and
// heard its probe.
func (i *Invalidations) Run(ctx context.Context) error {
	defer i.all(false)
	for ctx.Err() == nil {
		err := i.listen(ctx)
		i.all(false)
		if ctx.Err() != nil {
			break
		}
		i.failed(err)
		select {
		case <-ctx.Done():
		case <-time.After(i.retry):
		}
	}
	return ctx.Err()
}

// listen follows one connection until it fails, fails its probe or ctx ends.
func (i *Invalidations) listen(ctx context.Context) error {
	conn, err := i.connect(ctx)
	if err != nil {
		return err
	}
	silent := false
	defer func() { release(conn, silent) }()
	lctx, cancel := context.WithCancel(ctx)
	notes, readErr, read := receive(lctx, conn.Conn())
	defer func() { cancel(); <-read }() // before the release: the reader uses the connection
	err = i.follow(lctx, notes, readErr)
	silent = errors.Is(err, ErrSilent)
	return err
}

// connect acquires the listener's connection and LISTENs on every channel within connectWithin.
func (i *Invalidations) connect(ctx context.Context) (*pgxpool.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, i.connectWithin)
	defer cancel()
	conn, err := i.pool.Acquire(cctx)
	if err != nil {
		return nil, fmt.Errorf("cache invalidations: connecting: %w", err)
	}
	for _, ch := range append(i.channels(), i.probeChannel) {
		if _, err := conn.Exec(cctx, "LISTEN "+ch); err != nil {
			release(conn, false) // one that timed out is closed already
			return nil, fmt.Errorf("cache invalidations: LISTEN: %w", err)
		}
	}
	return conn, nil
}

// release gives the listener's connection back to the pool without its LISTENs, or closes it: a
// silent one (it may still answer, from a server that is no longer the primary) and one that does
// not answer the UNLISTEN are never handed to another user.
func release(conn *pgxpool.Conn, silent bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if silent {
		_ = conn.Conn().Close(ctx)
	} else if _, err := conn.Exec(ctx, "UNLISTEN *"); err != nil {
		_ = conn.Conn().Close(ctx)
	}
	conn.Release() // a closed connection is destroyed, not pooled
}

func (i *Invalidations) channels() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	channels := make([]string, 0, len(i.subs))
	for ch := range i.subs {
		channels = append(channels, ch)
	}
	return channels
}

// receive reads conn's notifications until ctx ends or the connection fails (its error on
// readErr); read is closed once it no longer uses conn.
func receive(ctx context.Context, conn *pgx.Conn) (notes <-chan *pgconn.Notification, readErr <-chan error, read <-chan struct{}) {
	out, errc, done := make(chan *pgconn.Notification), make(chan error, 1), make(chan struct{})
	go func() {
		defer close(done)
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				errc <- err
				return
			}
			select {
			case out <- n:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, errc, done
}

// follow applies the notifications and probes the connection until it fails, its probe does not
// come back within probeWithin (ErrSilent), or ctx ends. The caches go on at the first probe
// heard: every change committed from then on is announced, and heard. Every cache is called on
// this goroutine only.
func (i *Invalidations) follow(ctx context.Context, notes <-chan *pgconn.Notification, readErr <-chan error) error {
	next := time.NewTimer(0) // the first probe at once
	defer next.Stop()
	sent := make(chan error, 1)
	var (
		seq  uint64
		want string // the payload of the probe in flight
		due  <-chan time.Time
		on   bool
	)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			return fmt.Errorf("cache invalidations: listening: %w", err)
		case n := <-notes:
			if n.Channel != i.probeChannel {
				i.dispatch(n)
				continue
			}
			if want == "" || n.Payload != want { // a probe of before, come back late
				continue
			}
			want, due = "", nil
			if !on {
				i.all(true)
				on = true
			}
			i.heard()
			next.Reset(i.probeEvery)
		case <-next.C:
			seq++
			want, due = strconv.FormatUint(seq, 10), time.After(i.probeWithin)
			go i.sendProbe(ctx, want, sent)
		case err := <-sent:
			if err != nil {
				return fmt.Errorf("cache invalidations: sending the probe: %w", err)
			}
		case <-due:
			return fmt.Errorf("%w: its probe did not come back within %s", ErrSilent, i.probeWithin)
		}
	}
}

// sendProbe sends the probe payload through the pool and reports how that went on sent.
func (i *Invalidations) sendProbe(ctx context.Context, payload string, sent chan<- error) {
	sctx, cancel := context.WithTimeout(ctx, i.probeWithin)
	defer cancel()
	_, err := i.pool.Exec(sctx, "SELECT pg_notify($1, $2)", i.probeChannel, payload)
	select {
	case sent <- err:
	case <-ctx.Done():
	}
}

// dispatch hands a notification to the caches registered on its channel.
func (i *Invalidations) dispatch(n *pgconn.Notification) {
	i.mu.Lock()
	cs := i.subs[n.Channel]
	i.mu.Unlock()
	for _, c := range cs {
		c.invalidate(n.Payload)
	}
}

// failLogEvery bounds how often one run of failures is logged.
const failLogEvery = time.Minute

// failed records a failure of the listener and logs it, the first of a run of failures, its first
// silence, and then one a minute (a path that stays deaf fails every few seconds): a silent
// listener as an error (its caches trusted it), another failure (the datastore down) as a
// warning.
func (i *Invalidations) failed(err error) {
	i.failMu.Lock()
	defer i.failMu.Unlock()
	now := i.now()
	if i.failingSince.IsZero() {
		i.failingSince = now
	}
	i.failedAt, i.failErr = now, err
	silent := errors.Is(err, ErrSilent)
	if !i.loggedAt.IsZero() && now.Sub(i.loggedAt) < failLogEvery && (!silent || i.loggedSilent) {
		return
	}
	i.loggedAt = now
	ev := i.Log.Warn()
	if silent {
		ev, i.loggedSilent = i.Log.Error(), true
	}
	ev.Err(err).Time("failing_since", i.failingSince).
		Msg("cache invalidations listener down: caches off until it reconnects and hears its probe")
}

// heard records that the listener heard its probe: a run of failures has ended.
func (i *Invalidations) heard() {
	i.failMu.Lock()
	defer i.failMu.Unlock()
	if i.failingSince.IsZero() {
		return
	}
	i.Log.Info().Time("failing_since", i.failingSince).Msg("cache invalidations listener hears again: caches on")
	i.failingSince, i.loggedAt, i.loggedSilent = time.Time{}, time.Time{}, false
}

// FailingFor is how long the listener's run of failures lasts before cmd/payledger/app.Health
// shows it: at once, since its caches are off for as long as it lasts.
func (i *Invalidations) FailingFor() time.Duration { return 0 }

// Failing reports the listener's run of failures, as a worker that retries its failures itself
// does to cmd/payledger/app.Health: since when it has not heard its probe (zero while it hears),
// and its last failure.
func (i *Invalidations) Failing() (since, last time.Time, err error) {
	i.failMu.Lock()
	defer i.failMu.Unlock()
	if i.failingSince.IsZero() {
		return time.Time{}, time.Time{}, nil
	}
	return i.failingSince, i.failedAt, i.failErr
}
