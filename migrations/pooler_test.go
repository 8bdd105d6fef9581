package migrations_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations"
)

// poolerProxy forwards PostgreSQL connections to target, except those whose startup message
// names the database "postgres", which it closes: PgBouncer configured for the service's
// database only, or a role without CONNECT on "postgres". It returns its address.
func poolerProxy(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { forwardUnlessPostgres(c, target) })
		}
	})
	return ln.Addr().String()
}

func forwardUnlessPostgres(c net.Conn, target string) {
	defer c.Close()
	var startup []byte
	for {
		var head [8]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return
		}
		rest := make([]byte, binary.BigEndian.Uint32(head[:4])-8)
		if _, err := io.ReadFull(c, rest); err != nil {
			return
		}
		if code := binary.BigEndian.Uint32(head[4:]); code == 80877103 || code == 80877104 { // SSL, GSS encryption: no
			if _, err := c.Write([]byte{'N'}); err != nil {
				return
			}
			continue
		}
		startup = append(head[:], rest...)
		fields := bytes.Split(rest, []byte{0})
		for i := 0; i+1 < len(fields); i += 2 {
			if string(fields[i]) == "database" && string(fields[i+1]) == "postgres" {
				return
			}
		}
		break
	}
	s, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer s.Close()
	if _, err := s.Write(startup); err != nil {
		return
	}
	go func() { _, _ = io.Copy(s, c); s.Close() }()
	_, _ = io.Copy(c, s)
}

// TestEnsureDatabaseBehindAPooler: a database that exists is used as it is, whether or not the
// server's "postgres" database answers (serve could not start behind PgBouncer).
func TestEnsureDatabaseBehindAPooler(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u, err := url.Parse(emptyDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	if u.Host == "" {
		t.Skip("the test server is reached through a Unix socket")
	}
	u.Host = poolerProxy(t, u.Host)
	if err := migrations.EnsureDatabase(ctx, u.String()); err != nil {
		t.Fatalf("EnsureDatabase behind a pooler: %v", err)
	}
	if err := migrations.Apply(ctx, u.String()); err != nil {
		t.Fatalf("Apply behind a pooler: %v", err)
	}
}

// TestStartOnAServerThatNeverAnswers: a server that accepts connections and never answers (hung,
// or a proxy in front of a stopped one) held EnsureDatabase and Apply, and so serve's start, for
// ever without a line; each gives up with an error after the connect timeout.
func TestStartOnAServerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.WaitGroup
	stop := make(chan struct{})
	defer func() { close(stop); ln.Close(); held.Wait() }()
	held.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held.Go(func() { <-stop; c.Close() }) // accepted, never answered
		}
	})
	dbURL := "postgres://postgres@" + ln.Addr().String() + "/payledger?sslmode=disable"
	done := make(chan error, 2)
	go func() { done <- migrations.EnsureDatabase(context.Background(), dbURL) }()
	go func() { done <- migrations.Apply(context.Background(), dbURL) }()
	for range 2 {
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("a start on a server that never answers succeeded")
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("the start waits for ever on a server that never answers")
		}
	}
}
