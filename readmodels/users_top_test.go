package readmodels

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/migrations/pgtest"
)

// seedVaried stores n users with XP ties, mixed-case names, tags and presence of every kind, so
// that each search filter keeps some and drops some.
func seedVaried(t *testing.T, pool *pgxpool.Pool, n int, now time.Time) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `
		INSERT INTO users (wallet, display_name, xp, domains, platforms, languages, live, space_public, last_heartbeat)
		SELECT '0x' || lpad(to_hex(i * 7919), 40, '0'),
			(ARRAY['Alice ', 'BOB ', 'carol ', 'Dave_', '100% '])[1 + i % 5] || i,
			(i * 37) % 500,
			(ARRAY['{defi}', '{nft,defi}', '{}', '{gaming}'])[1 + i % 4]::text[],
			(ARRAY['{x}', '{x,youtube}', '{}'])[1 + i % 3]::text[],
			(ARRAY['{en}', '{en,fr}', '{es}', '{}'])[1 + i % 4]::text[],
			i % 2 = 0, i % 3 <> 0,
			CASE WHEN i % 7 = 0 THEN NULL ELSE $1::timestamptz - (i % 4) * interval '50 seconds' END
		FROM generate_series(1, $2::int) i`, now, n)
	if err != nil {
		t.Fatal(err)
	}
}

// windowed returns a store that answers from the window, once its listener is connected.
func windowed(t *testing.T, pool *pgxpool.Pool) *Users {
	t.Helper()
	inv := cache.NewInvalidations(pool)
	users := NewUsers(pool).KeepTopInMemory(inv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = inv.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok, err := users.top.get(ctx); err != nil {
			t.Fatal(err)
		} else if ok {
			return users
		}
		if time.Now().After(deadline) {
			t.Fatal("the window never started listening")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSearchFromTheWindowEqualsSQL runs every filter, and combinations, through the in-memory
// window and through the statement, over more users than the window holds.
func TestSearchFromTheWindowEqualsSQL(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	now := time.Now().UTC().Truncate(time.Second)
	seedVaried(t, pool, 1500, now)
	// Each user follows the next three by number: the leaders have followers and followees.
	if _, err := pool.Exec(context.Background(), `INSERT INTO follows (follower, followee)
		SELECT '0x' || lpad(to_hex(i * 7919), 40, '0'), '0x' || lpad(to_hex(((i + k - 1) % 1500 + 1) * 7919), 40, '0')
		FROM generate_series(1, 1500) i, generate_series(1, 3) k`); err != nil {
		t.Fatal(err)
	}
	sqlOnly, mem := NewUsers(pool), windowed(t, pool)
	i64 := func(v int64) *int64 { return &v }
	for _, q := range []UserQuery{
		{Limit: 25, Scan: 400},
		{Limit: 100, Scan: 1000},
		{Limit: 1, Scan: 1},
		{Limit: 3, Scan: 3},
		{Q: "alice", Limit: 25, Scan: 400},
		{Q: "ALICE 1", Limit: 25, Scan: 1000},
		{Q: "0x0000", Limit: 10, Scan: 1000},
		{Q: "%", Limit: 25, Scan: 1000},
		{Q: "_", Limit: 25, Scan: 1000},
		{Q: "dave_1", Limit: 25, Scan: 1000},
		{Domains: []string{"defi"}, Limit: 25, Scan: 400},
		{Domains: []string{"defi", "nft"}, Limit: 100, Scan: 1000},
		{Platforms: []string{"x", "youtube"}, Limit: 25, Scan: 1000},
		{Languages: []string{"en"}, Limit: 25, Scan: 1000},
		{Languages: []string{"fr", "en"}, Limit: 25, Scan: 1000},
		{Domains: []string{"DeFi"}, Languages: []string{"EN", "Fr"}, Platforms: []string{"X"}, Limit: 25, Scan: 1000},
		{Domains: []string{"NFT", "défi"}, Limit: 25, Scan: 1000},
		{MinXP: i64(400), Limit: 25, Scan: 1000},
		{MaxXP: i64(10), Limit: 25, Scan: 1000},
		{MinXP: i64(100), MaxXP: i64(100), Limit: 25, Scan: 1000},
		{MinXP: i64(300), MaxXP: i64(200), Limit: 25, Scan: 1000},
		{Live: true, Limit: 25, Scan: 400, Now: now},
		{Live: true, Limit: 100, Scan: 1000, Now: now.Add(90 * time.Second)},
		{Q: "o", Domains: []string{"defi"}, MinXP: i64(250), Live: true, Limit: 5, Scan: 1000, Now: now},
		{Q: "a", Platforms: []string{"x"}, Languages: []string{"en"}, MaxXP: i64(450), Limit: 100, Scan: 700},
	} {
		t.Run(fmt.Sprintf("%+v", q), func(t *testing.T) {
			wantUsers, wantTotal, err := sqlOnly.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			gotUsers, gotTotal, err := mem.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if gotTotal != wantTotal || !reflect.DeepEqual(wallets(gotUsers), wallets(wantUsers)) {
				t.Fatalf("window: total %d %v\nSQL:    total %d %v", gotTotal, wallets(gotUsers), wantTotal, wallets(wantUsers))
			}
			for i := range gotUsers {
				if !reflect.DeepEqual(gotUsers[i], wantUsers[i]) {
					t.Fatalf("user %d: window %+v, SQL %+v", i, gotUsers[i], wantUsers[i])
				}
			}
		})
	}
	t.Run("leaderboard and its follow counts", func(t *testing.T) {
		want, err := sqlOnly.Leaderboard(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		got, err := mem.Leaderboard(context.Background(), 100)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("window %v %v, SQL %v", wallets(got), err, wallets(want))
		}
		wantCounts, err := sqlOnly.FollowCounts(context.Background(), wallets(want))
		if err != nil {
			t.Fatal(err)
		}
		gotCounts, ok, err := mem.topCounts(context.Background(), wallets(want))
		if err != nil || !ok || !reflect.DeepEqual(gotCounts, wantCounts) {
			t.Fatalf("window counts %v %v %v\nSQL counts %v", ok, err, gotCounts, wantCounts)
		}
		followed := 0
		for _, c := range wantCounts {
			followed += c.Followers
		}
		if followed == 0 {
			t.Fatal("no follows among the leaders: the counts compared nothing")
		}
	})
}

func wallets(users []User) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = u.Wallet
	}
	return out
}

// TestTheWindowFollowsEveryChange changes users behind the window's back (as the projector, a
// profile write in another instance or a rebuild would) and finds each change in a search.
func TestTheWindowFollowsEveryChange(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	now := time.Now().UTC()
	seedVaried(t, pool, 50, now)
	mem := windowed(t, pool)
	first := func() (string, int) {
		users, total, err := mem.Search(context.Background(), UserQuery{Limit: 1, Scan: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(users) == 0 {
			return "", total
		}
		return users[0].Wallet, total
	}
	eventually := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("the window never showed %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	top, _ := first()
	ctx := context.Background()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO users (wallet, xp) VALUES ($1, 1000000)`, "0x"+fmt.Sprintf("%040d", 1))
	eventually("an inserted user", func() bool { w, n := first(); return w == "0x"+fmt.Sprintf("%040d", 1) && n == 51 })
	exec(`UPDATE users SET xp = 2000000 WHERE wallet = $1`, top)
	eventually("an XP update", func() bool { w, _ := first(); return w == top })
	followCounts := func() FollowCounts {
		counts, ok, err := mem.topCounts(ctx, []string{top})
		if err != nil || !ok {
			t.Fatalf("counts not from the window: %v", err)
		}
		return counts[top]
	}
	exec(`INSERT INTO follows (follower, followee) VALUES ($1, $2)`, "0x"+fmt.Sprintf("%040d", 1), top)
	eventually("a follow", func() bool { return followCounts().Followers == 1 })
	exec(`DELETE FROM follows`)
	eventually("an unfollow", func() bool { return followCounts().Followers == 0 })
	exec(`DELETE FROM users WHERE wallet = $1`, top)
	eventually("a deletion", func() bool { w, n := first(); return w != top && n == 50 })
	exec(`TRUNCATE users`)
	eventually("a truncation", func() bool { _, n := first(); return n == 0 })
}

// countedWindow is a windowed store over 10 users whose window reads are counted, each taking
// at least delay.
func countedWindow(t *testing.T, delay time.Duration) (*Users, *atomic.Int32) {
	t.Helper()
	pool := pgtest.Pool(t)
	seedVaried(t, pool, 10, time.Now())
	mem := windowed(t, pool)
	reads := &atomic.Int32{}
	read := mem.top.read
	mem.top.read = func(ctx context.Context) (*topWindow, error) {
		reads.Add(1)
		time.Sleep(delay)
		return read(ctx)
	}
	return mem, reads
}

// TestTheWindowIsReadOnceForConcurrentSearches: sixteen searches on a window nobody has read
// share one read; a lost listener drops the window, and searches go to the database.
func TestTheWindowIsReadOnceForConcurrentSearches(t *testing.T) {
	// Each read takes long enough for every search to arrive while it runs.
	mem, reads := countedWindow(t, 20*time.Millisecond)
	mem.top.invalidate("")
	mem.top.maxStale = 0
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, total, err := mem.Search(context.Background(), UserQuery{Limit: 25, Scan: 400}); err != nil || total != 10 {
				t.Errorf("search: %d %v", total, err)
			}
		}()
	}
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d reads of the window for 16 searches, want 1", n)
	}
	mem.top.setListening(false)
	if _, ok, _ := mem.top.get(context.Background()); ok {
		t.Fatal("a window without a listener was trusted")
	}
	if _, total, err := mem.Search(context.Background(), UserQuery{Limit: 25, Scan: 400}); err != nil || total != 10 {
		t.Fatalf("search from the database: %d %v", total, err)
	}
}

// TestTheWindowIsReadAtMostOncePerMaxStale: changes announced within maxStale of the first one
// since the window's read are answered from that window; once the change is maxStale old, the
// next search reads it again.
func TestTheWindowIsReadAtMostOncePerMaxStale(t *testing.T) {
	mem, reads := countedWindow(t, 0)
	mem.top.maxStale = 200 * time.Millisecond
	search := func() {
		t.Helper()
		if _, _, err := mem.Search(context.Background(), UserQuery{Limit: 25, Scan: 400}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for range 20 { // a burst of heartbeats, each followed by a search
		mem.top.invalidate("")
		search()
	}
	if n := reads.Load(); n != 0 && time.Since(start) < mem.top.maxStale {
		t.Fatalf("%d reads within maxStale of the first change, want 0", n)
	}
	time.Sleep(mem.top.maxStale)
	search()
	search()
	if n := reads.Load(); n < 1 || n > 2 {
		t.Fatalf("%d reads after the change aged past maxStale, want 1 (2 if the burst outlasted it)", n)
	}
}
