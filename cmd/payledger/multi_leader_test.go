package main

import (
	"encoding/json"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// Two serve instances on one database, the instance that leads the projectors then lost as a
// machine is lost: its connections stay open (no FIN, no RST reaches PostgreSQL) and nothing more
// comes through them. The other instance must take every projector over. Before, the leader
// lock was a session advisory lock on a connection nobody used after taking it, so PostgreSQL
// kept it until TCP keepalive ended the session (7200 s by default): the read models, the
// webhooks fanned out by the receipts projector, receipt.created and subscription charging
// stopped on every instance for over two hours.
func TestMultiServeProjectorsTakenOverFromALostInstance(t *testing.T) {
	direct := pgtest.URL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	link := newFreezingProxy(t, u.Host)
	u.Host = link.addr
	_, outA, stopA := startServeStoppable(t, map[string]string{"DATABASE_URL": u.String(), "EMBEDDED_POSTGRES": "off"})
	// Cleanups run last first: the link is cut (every connection closed) before A is stopped,
	// so that A's shutdown does not wait on a database that never answers.
	t.Cleanup(stopA)
	t.Cleanup(link.cut)
	projectors := []string{"receipts", "users", "subscriptions", "receipt_created"}
	multiWait(t, "instance A leads every projector", 2*time.Minute, func() bool { return leads(outA.String(), projectors) }, outA.String)

	_, outB, stopB := startServeStoppable(t, map[string]string{"DATABASE_URL": direct, "EMBEDDED_POSTGRES": "off"})
	t.Cleanup(stopB)
	// B stands by while A holds the locks: it answers, and leads nothing.
	if led := leading(outB.String()); len(led) > 0 {
		t.Fatalf("instance B leads %v while A holds every lock\n%s", led, outB.String())
	}

	link.freeze() // A's machine is gone
	multiWait(t, "instance B leads every projector after A was lost", 3*time.Minute,
		func() bool { return leads(outB.String(), projectors) }, outB.String)
}

// multiWait waits until cond holds, failing the test with log's tail after timeout (a bound far
// above the expected, so that a slow machine does not fail it).
func multiWait(t *testing.T, what string, timeout time.Duration, cond func() bool, log func() string) {
	t.Helper()
	if !wait.Poll(timeout, cond) {
		t.Fatalf("waiting for %s: not within %v\n%s", what, timeout, tail(log(), 8000))
	}
}

// leading is the projectors a serve log says it leads ("projector leading").
func leading(log string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(log, "\n") {
		var m struct{ Projector, Message string }
		if json.Unmarshal([]byte(l), &m) == nil && m.Message == "projector leading" {
			out[m.Projector] = true
		}
	}
	return out
}

// leads says whether log says it leads every one of names.
func leads(log string, names []string) bool {
	led := leading(log)
	for _, n := range names {
		if !led[n] {
			return false
		}
	}
	return true
}

// freezingProxy forwards a local port to PostgreSQL until freeze: from then on nothing passes in
// either direction and nothing is closed, as when the machine on one side is lost. cut closes
// everything (the test's end).
type freezingProxy struct {
	addr   string
	target string
	ln     net.Listener
	frozen chan struct{}
	ended  chan struct{}
	mu     sync.Mutex
	conns  []net.Conn
	once   sync.Once
	thaw   sync.Once
}

func newFreezingProxy(t *testing.T, target string) *freezingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezingProxy{addr: ln.Addr().String(), target: target, ln: ln, frozen: make(chan struct{}), ended: make(chan struct{})}
	go p.accept()
	t.Cleanup(p.cut)
	return p
}

func (p *freezingProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		select {
		case <-p.frozen: // a lost machine's connects reach nothing
			continue
		default:
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, up)
		p.mu.Unlock()
		go p.pipe(up, c)
		go p.pipe(c, up)
	}
}

// pipe copies from src to dst until either ends; once frozen it passes nothing more, and
// neither an end nor an error is passed on: it waits for cut.
func (p *freezingProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-p.frozen:
			<-p.ended
			return
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			select {
			case <-p.frozen:
				<-p.ended
			default:
				dst.Close()
				src.Close()
			}
			return
		}
	}
}

// freeze stops every byte, on every connection, now and later.
func (p *freezingProxy) freeze() { p.thaw.Do(func() { close(p.frozen) }) }

// cut closes the listener and every connection.
func (p *freezingProxy) cut() {
	p.once.Do(func() {
		close(p.ended)
		p.ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
}
