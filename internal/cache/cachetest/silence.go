// Package cachetest makes a cache.Invalidations listener silent in tests, as a failover behind
// pgbouncer or HAProxy does: its connection stays open and nothing more comes through it, while
// every other connection of the pool goes on working (Silence); or makes every connection deaf to
// notifications, as PgBouncer in transaction mode does (DropNotifications).
package cachetest

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/netfreeze"
)

// Proxy forwards a local port to PostgreSQL; Silence stops one connection.
type Proxy struct {
	target string
	ln     net.Listener
	mu     sync.Mutex
	links  map[int]*link // by the local port of the connection to PostgreSQL
	ended  chan struct{}
	once   sync.Once
	// deaf drops the notifications (NotificationResponse) PostgreSQL sends on every connection.
	deaf atomic.Bool
}

type link struct {
	client, server net.Conn
	frozen         chan struct{}
	freeze         sync.Once
}

// Pool returns a pool like pool whose connections go through a new proxy, both closed when the
// test ends.
func Pool(tb testing.TB, pool *pgxpool.Pool) (*pgxpool.Pool, *Proxy) {
	tb.Helper()
	cfg := pool.Config().Copy()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{target: net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port))), ln: ln,
		links: map[int]*link{}, ended: make(chan struct{})}
	go p.accept()
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = "127.0.0.1", uint16(ln.Addr().(*net.TCPAddr).Port)
	proxied, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.close) // after the pool's close: cleanups run last first
	tb.Cleanup(proxied.Close)
	return proxied, p
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		l := &link{client: c, server: up, frozen: make(chan struct{})}
		p.mu.Lock()
		p.links[up.LocalAddr().(*net.TCPAddr).Port] = l
		p.mu.Unlock()
		go p.pipe(l, up, c)
		go p.pipe(l, c, p.filtered(up))
	}
}

// pipe copies src to dst until either ends; once its link is frozen it passes nothing more,
// neither bytes nor an end, until the proxy closes.
func (p *Proxy) pipe(l *link, dst net.Conn, src io.Reader) {
	netfreeze.Pipe(dst, src, l.frozen, p.ended, func() {
		l.client.Close()
		l.server.Close()
	})
}

// DropNotifications makes every connection, open or to come, deaf to notifications (drop true)
// or hear them again (false): LISTEN succeeds, NOTIFY succeeds, nothing arrives.
func (p *Proxy) DropNotifications(drop bool) { p.deaf.Store(drop) }

// filtered is what server sends, less its notifications while the proxy drops them. The server
// only sends typed messages (a type byte, then a length that counts itself) when the client asks
// for no TLS, as the tests' URL does.
func (p *Proxy) filtered(server net.Conn) io.Reader {
	r, w := io.Pipe()
	go func() {
		in := bufio.NewReader(server)
		var head [5]byte
		for {
			if _, err := io.ReadFull(in, head[:]); err != nil {
				w.CloseWithError(err)
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(head[1:])-4)
			if _, err := io.ReadFull(in, body); err != nil {
				w.CloseWithError(err)
				return
			}
			if head[0] == 'A' && p.deaf.Load() {
				continue
			}
			if _, err := w.Write(append(head[:], body...)); err != nil {
				return
			}
		}
	}()
	return r
}

func (p *Proxy) close() {
	p.once.Do(func() {
		close(p.ended)
		p.ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, l := range p.links {
			l.client.Close()
			l.server.Close()
		}
	})
}

// ListenerPort is the client port (pg_stat_activity.client_port) of the backend, connected
// through this proxy and not silenced, of the database that direct is connected to whose last
// statement was a cache listener's LISTEN on its probe channel (the last it sends); 0 when there
// is none, an error when there are several.
func (p *Proxy) ListenerPort(ctx context.Context, direct *pgxpool.Pool) (int, error) {
	rows, err := direct.Query(ctx, `SELECT client_port FROM pg_stat_activity
		WHERE datname = current_database() AND state = 'idle' AND query LIKE 'LISTEN payledger_cache_probe_%'`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ports []int
	for rows.Next() {
		var port int
		if err := rows.Scan(&port); err != nil {
			return 0, err
		}
		if p.live(port) {
			ports = append(ports, port)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	switch len(ports) {
	case 0:
		return 0, nil
	case 1:
		return ports[0], nil
	}
	return 0, fmt.Errorf("cachetest: %d listeners on the database", len(ports))
}

// live reports whether port is a connection of this proxy that is not silenced.
func (p *Proxy) live(port int) bool {
	p.mu.Lock()
	l := p.links[port]
	p.mu.Unlock()
	if l == nil {
		return false
	}
	select {
	case <-l.frozen:
		return false
	default:
		return true
	}
}

// SilenceAll stops every byte of every connection open now (none made later), as Silence
// does, as when the server they reach is lost while the pool reconnects elsewhere; it returns
// how many it stopped.
func (p *Proxy) SilenceAll() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.links {
		l.freeze.Do(func() { close(l.frozen) })
	}
	return len(p.links)
}

// Silence stops every byte of the proxied connection whose local port to PostgreSQL is port,
// in both directions, without closing it: it reports whether there is one.
func (p *Proxy) Silence(port int) bool {
	p.mu.Lock()
	l := p.links[port]
	p.mu.Unlock()
	if l == nil {
		return false
	}
	l.freeze.Do(func() { close(l.frozen) })
	return true
}
