package gql

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/readmodels"
)

// readCounter is a store that answers every wallet with a user and whose every read records how
// many reads ran at once: each waits for a second one to arrive (a concurrent read) or for a short
// bound.
type readCounter struct {
	mu       sync.Mutex
	inflight int
	most     int
	reads    int
	second   chan struct{}
}

func (g *readCounter) read() {
	g.mu.Lock()
	g.inflight++
	g.reads++
	g.most = max(g.most, g.inflight)
	if g.inflight == 2 {
		close(g.second)
	}
	g.mu.Unlock()
	select {
	case <-g.second:
	case <-time.After(20 * time.Millisecond):
	}
	g.mu.Lock()
	g.inflight--
	g.mu.Unlock()
}

func (g *readCounter) Get(_ context.Context, wallet string) (readmodels.User, error) {
	g.read()
	return readmodels.User{Wallet: wallet}, nil
}

func (g *readCounter) Leaderboard(context.Context, int) ([]readmodels.User, error) {
	g.read()
	return []readmodels.User{}, nil
}

func (g *readCounter) Live(context.Context, time.Time, int) ([]readmodels.User, error) {
	g.read()
	return []readmodels.User{}, nil
}

func (g *readCounter) FollowPage(context.Context, string, bool, int, string) ([]readmodels.Follow, error) {
	g.read()
	return []readmodels.Follow{}, nil
}

func (g *readCounter) FollowCounts(context.Context, []string) (map[string]readmodels.FollowCounts, error) {
	g.read()
	return map[string]readmodels.FollowCounts{}, nil
}

// aliasedFields is an operation selecting each of fields n times under its own alias.
func aliasedFields(n int, fields ...string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		for j, f := range fields {
			fmt.Fprintf(&b, " a%d_%d:%s", i, j, f)
		}
	}
	return b.String() + " }"
}

const (
	liveField   = `liveUsers(first:0){wallet}`
	leadField   = `leaderboard(first:0){wallet}`
	followField = `follows(wallet:"0x0000000000000000000000000000000000000001",direction:FOLLOWING,first:0){totalCount}`
)

// TestListReadsBoundedAndOneAtATime: every list field is a read of the store, as a user lookup
// is, so it costs ReadCost besides its items and an operation's reads run one at a time. gqlgen
// resolves a query's root fields concurrently, and a list field cost 1 + first × selection:
// 150 aliased liveUsers(first: 0) cost 300 and ran 150 reads with 130 of them at once, so one
// request held every connection of serve's pool (32) until its reads were done.
func TestListReadsBoundedAndOneAtATime(t *testing.T) {
	g := &readCounter{second: make(chan struct{})}
	srv := httptest.NewServer(NewHandler(g, time.Now))
	defer srv.Close()

	for _, f := range []string{liveField, leadField, followField} {
		_, data, errs := postQuery(t, srv.URL, aliasedFields(100, f))
		if len(errs) == 0 || errs[0]["extensions"].(map[string]any)["code"] != "COMPLEXITY_LIMIT_EXCEEDED" || len(data) != 0 || g.reads != 0 {
			t.Fatalf("100 aliased %s: %v, %d data, %d reads; want COMPLEXITY_LIMIT_EXCEEDED before any read", f, errs, len(data), g.reads)
		}
	}
	_, data, errs := postQuery(t, srv.URL, aliasedFields(4, liveField, leadField, followField))
	if len(errs) != 0 || len(data) != 12 {
		t.Fatalf("12 list fields: %v, %d data", errs, len(data))
	}
	if g.most != 1 || g.reads < 12 {
		t.Fatalf("12 list fields: %d reads, at most %d at once; want one at a time", g.reads, g.most)
	}
	// One leaderboard of 100 users with every field still fits (docs/graphql.md), two do not.
	all := `{wallet displayName pfpUrl xp live lastSeen lastHeartbeat domains platforms languages followerCount followingCount}`
	if _, _, errs := postQuery(t, srv.URL, `{leaderboard(first:100)`+all+`}`); len(errs) != 0 {
		t.Fatalf("one leaderboard of 100: %v", errs)
	}
	if _, _, errs := postQuery(t, srv.URL, `{a:leaderboard(first:100)`+all+` b:leaderboard(first:100)`+all+`}`); len(errs) == 0 {
		t.Fatal("two leaderboards of 100 with every field were answered")
	}
}
