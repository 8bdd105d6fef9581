package readmodels

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"
)

// TestReplicaReadsRemembersWritersBriefly: a caller counts as a writer (its reads wait for the
// replica) for recentWrite after its write, by any of its names; the memory is bounded.
func TestReplicaReadsRemembersWritersBriefly(t *testing.T) {
	now := time.UnixMilli(1_795_000_000_000)
	r := NewReplicaReads(nil, nil, func() time.Time { return now }, zerolog.Nop())
	r.Wrote("ip:10.0.0.1", "wallet:0xab")
	cases := []struct {
		name    string
		after   time.Duration
		callers []string
		want    bool
	}{
		{"the same wallet at once", 0, []string{"wallet:0xab"}, true},
		{"the same address, another wallet", time.Second, []string{"ip:10.0.0.1", "wallet:0xcd"}, true},
		{"someone else", 0, []string{"ip:10.0.0.2"}, false},
		{"the writer at the end of the window", recentWrite, []string{"wallet:0xab"}, true},
		{"the writer after the window", recentWrite + time.Millisecond, []string{"wallet:0xab"}, false},
	}
	base := now
	for _, c := range cases {
		now = base.Add(c.after)
		if got := r.wroteRecently(c.callers); got != c.want {
			t.Errorf("%s: wrote recently %v, want %v", c.name, got, c.want)
		}
	}
	for i := range maxWriters + 1 {
		r.Wrote(fmt.Sprintf("ip:%d", i))
	}
	if n := len(r.writers); n > maxWriters {
		t.Fatalf("%d writers remembered, at most %d", n, maxWriters)
	}
}

// TestReadPoolIsTheRequestsChoice: without a choice on the context a read uses its own pool.
func TestReadPoolIsTheRequestsChoice(t *testing.T) {
	own, chosen := &pgxpool.Pool{}, &pgxpool.Pool{}
	if ReadPool(context.Background(), own) != own {
		t.Fatal("no choice: not the read model's pool")
	}
	if ReadPool(context.WithValue(context.Background(), readPoolKey{}, chosen), own) != chosen {
		t.Fatal("the request's choice was not used")
	}
	r := NewReplicaReads(own, chosen, time.Now, zerolog.Nop()) // not probed yet: unhealthy
	if ReadPool(r.For(context.Background(), "ip:1"), nil) != own {
		t.Fatal("an unprobed replica was used")
	}
}
