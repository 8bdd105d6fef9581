// Package netfreeze is a TCP proxy for tests that can stop every byte at once without closing
// anything, as when the machine on one side of a connection is lost: no FIN or RST reaches the
// other side, and nothing more does either.
package netfreeze

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards a local port to a target until Freeze.
type Proxy struct {
	Addr   string // host:port to dial instead of the target
	target string
	ln     net.Listener
	frozen chan struct{}
	ended  chan struct{}
	mu     sync.Mutex
	conns  []net.Conn
	freeze sync.Once
	cut    sync.Once
}

// New starts a proxy to target that is cut when the test ends.
func New(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, frozen: make(chan struct{}), ended: make(chan struct{})}
	go p.accept()
	tb.Cleanup(p.Cut)
	return p
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.keep(c)
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
		p.keep(up)
		go p.pipe(up, c)
		go p.pipe(c, up)
	}
}

func (p *Proxy) keep(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c)
}

func (p *Proxy) pipe(dst, src net.Conn) {
	Pipe(dst, src, p.frozen, p.ended, func() {
		dst.Close()
		src.Close()
	})
}

// Pipe copies src to dst until either ends, then calls closeBoth; once frozen is closed it
// passes nothing more, neither bytes nor an end, and returns when ended is closed (the proxy's
// end). The one copy loop of the tests' proxies: this package's, which freezes every
// connection, and cachetest's, which freezes one.
func Pipe(dst io.Writer, src io.Reader, frozen, ended <-chan struct{}, closeBoth func()) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if closed(frozen) {
			<-ended
			return
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			if closed(frozen) { // the end came after the freeze: it is not passed on either
				<-ended
				return
			}
			closeBoth()
			return
		}
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Freeze stops every byte, on every connection, now and later.
func (p *Proxy) Freeze() { p.freeze.Do(func() { close(p.frozen) }) }

// Cut closes the listener and every connection (the test's end).
func (p *Proxy) Cut() {
	p.cut.Do(func() {
		close(p.ended)
		p.ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
}
