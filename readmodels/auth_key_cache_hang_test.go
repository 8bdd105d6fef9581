package readmodels

import (
	"context"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestCachedKeyOutlivesAHungDatastoreAsBefore: re-confirming a cached key every keyCacheMaxAge
// must not make a hung datastore (every PostgreSQL process stopped: connections stay open and
// never answer, so the listener still counts as connected) hold up every request with that key
// until the hang ends, where the cache answered them before. The re-confirmation waits at most
// keyRecheckWait; a key the cache still vouches for is then served and not asked about again for
// keyCacheMaxAge, so orders go on being accepted (degraded) during the hang.
func TestCachedKeyOutlivesAHungDatastoreAsBefore(t *testing.T) {
	t.Parallel()
	direct := pgtest.URL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	hang := newHangProxy(t, u.Host)
	defer hang.unfreeze()
	viaProxy := *u
	viaProxy.Host = hang.addr
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	here := NewKeys(pgtest.PoolFor(t, viaProxy.String()))
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	here.now = func() time.Time { return time.Unix(0, clock.Load()) }
	inv := cache.NewInvalidations(here.pool)
	inv.Register(RevokedChannel, here.Cache())
	done := make(chan struct{})
	go func() { defer close(done); _ = inv.Run(ctx) }()
	defer func() { cancel(); <-done }()

	secret, _, err := NewKeys(pgtest.PoolFor(t, direct)).Create(ctx, "0x"+strings.Repeat("d", 40), "k", []string{"orders:create"})
	if err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the key to be cached", 10*time.Second, func() bool {
		_, err := here.Authenticate(ctx, secret)
		return err == nil && here.Cache().Len() == 1
	})
	hang.freeze()
	clock.Add(int64(keyCacheMaxAge + time.Second)) // the entry is due for confirmation
	for i, bound := range []time.Duration{keyRecheckWait + time.Second, 200 * time.Millisecond} {
		actx, acancel := context.WithTimeout(ctx, 10*time.Second)
		began := time.Now()
		_, err := here.Authenticate(actx, secret)
		acancel()
		if took := time.Since(began); err != nil || took > bound {
			t.Fatalf("request %d with the cached key while the datastore hangs: %v after %v, want the key within %v", i+1, err, took, bound)
		}
	}
}

// hangProxy forwards TCP connections to a PostgreSQL server until frozen; frozen, it holds every
// byte (both ways) without closing anything, as a server whose processes are stopped.
type hangProxy struct {
	addr string
	mu   sync.Mutex
	thaw chan struct{} // nil: forwarding
}

func newHangProxy(t *testing.T, upstream string) *hangProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &hangProxy{addr: ln.Addr().String()}
	var conns sync.WaitGroup
	t.Cleanup(func() { p.unfreeze(); ln.Close(); conns.Wait() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			conns.Add(2)
			go func() { defer conns.Done(); p.pipe(up, c) }()
			go func() { defer conns.Done(); p.pipe(c, up) }()
		}
	}()
	return p
}

func (p *hangProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.thaw == nil {
		p.thaw = make(chan struct{})
	}
}

// unfreeze forwards again what was held; the test defers it, so that its pools close (cleanups)
// on a server that answers.
func (p *hangProxy) unfreeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.thaw != nil {
		close(p.thaw)
		p.thaw = nil
	}
}

func (p *hangProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		thaw := p.thaw
		p.mu.Unlock()
		if thaw != nil {
			<-thaw
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
