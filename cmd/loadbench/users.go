package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/readmodels"
)

// The users phases (issue 19, Benchmarks): GET /api/users/search over seededUsers users with and
// without filters, and GraphQL leaderboard(first: 100) with follower counts, each next to its
// ceiling: the same statements as plain SQL (readmodels.Users on a pool of `clients`
// connections), no HTTP, in the same run. The last pair runs the filtered search while users'
// heartbeats change the table without pause (the service's window is then read again, at most
// every 250 ms).
const (
	seededUsers     = 100_000
	followsPerUser  = 5
	searchFiltered  = "q=user%201&domains=defi&minXp=1000"
	leaderboardGQL  = `{ leaderboard(first: 100) { wallet displayName xp followerCount followingCount } }`
	leaderboardBody = `{"query":"` + leaderboardGQL + `"}`
	// heartbeatsPerSecond is the presence writes of the "while users change" phases: each one an
	// UPDATE of a random user's heartbeat, as POST /api/users/presence writes it, so the table
	// never stops changing.
	heartbeatsPerSecond = 500
)

// seedUsers writes seededUsers users (XP spread over 0..99,999, a few domains, platforms and
// languages, every 50th live and public) and followsPerUser follows each.
func seedUsers(ctx context.Context, dbURL string) error {
	return withPool(ctx, dbURL, 1, func(pool *pgxpool.Pool) error {
		_, err := pool.Exec(ctx, fmt.Sprintf(`
			INSERT INTO users (wallet, display_name, xp, domains, platforms, languages, live, space_public, last_heartbeat, last_seen)
			SELECT '0x' || lpad(to_hex(i), 40, '0'), 'user ' || i, (i::bigint * 7919) %% 100000,
				string_to_array((ARRAY['defi', 'nft', 'defi,nft', 'gaming', ''])[1 + i %% 5], ','),
				string_to_array((ARRAY['x', 'youtube', 'x,twitch'])[1 + i %% 3], ','),
				string_to_array((ARRAY['en', 'en,fr', 'es', 'de'])[1 + i %% 4], ','),
				i %% 50 = 0, i %% 50 = 0, now(), now()
			FROM generate_series(1, %[1]d) i;
			INSERT INTO follows (follower, followee)
			SELECT '0x' || lpad(to_hex(i), 40, '0'), '0x' || lpad(to_hex(1 + (i * 31 + k * 7717) %% %[1]d), 40, '0')
			FROM generate_series(1, %[1]d) i, generate_series(1, %[2]d) k
			WHERE 1 + (i * 31 + k * 7717) %% %[1]d <> i
			ON CONFLICT DO NOTHING`, seededUsers, followsPerUser))
		if err != nil {
			return err
		}
		// A table in service is vacuumed by autovacuum; freshly seeded, its visibility map is
		// empty and every index-only scan (the search's count) would visit the table too.
		_, err = pool.Exec(ctx, `VACUUM ANALYZE users, follows`)
		return err
	})
}

// usersPhases seeds the users, makes a key with users:read and graphql:read for wallet, and
// measures the three routes and their ceilings.
func usersPhases(ctx context.Context, dbURL string, svc *service, wallet string, clients int, d time.Duration) ([]result, error) {
	addr, servePid := svc.addr, svc.pid()
	start := time.Now()
	if err := seedUsers(ctx, dbURL); err != nil {
		return nil, fmt.Errorf("seed users: %w", err)
	}
	fmt.Fprintf(os.Stderr, "loadbench: seeded %d users in %s\n", seededUsers, time.Since(start).Round(time.Millisecond))
	key, err := svc.createKey(wallet, "users:read,graphql:read")
	if err != nil {
		return nil, err
	}
	results, err := usersRoutes(ctx, dbURL, addr, key, clients, d, servePid)
	if err != nil {
		return nil, err
	}
	ceilings, err := usersCeilings(ctx, dbURL, clients, d, servePid)
	return append(results, ceilings...), err
}

// whileChanging names the phases that run while users change.
func whileChanging() string {
	return fmt.Sprintf("the filtered search while users change (%d heartbeats/s)", heartbeatsPerSecond)
}

// usersRoutes measures the three routes through the service with key, then the filtered search
// while users change.
func usersRoutes(ctx context.Context, dbURL, addr, key string, clients int, d time.Duration, servePid int) ([]result, error) {
	wires := make([]*wireClient, clients)
	for i := range wires {
		wires[i] = &wireClient{addr: addr}
	}
	httpPhase := func(profileName, name string, req []byte) result {
		if _, err := (&wireClient{addr: addr}).call(req); err != nil {
			fmt.Fprintln(os.Stderr, name, err)
		}
		return measured(servePid, profileName, name, clients, d, func(w int) error {
			_, err := wires[w].call(req)
			return err
		})
	}
	var results []result
	filteredReq := request("GET", addr, "/api/users/search?"+searchFiltered, key, "")
	results = append(results,
		httpPhase("search", "GET /api/users/search (no filter)", request("GET", addr, "/api/users/search", key, "")),
		httpPhase("search-filtered", "GET /api/users/search?"+searchFiltered, filteredReq),
		httpPhase("graphql", "POST /api/graphql leaderboard(first: 100) with counts", request("POST", addr, "/api/graphql", key, leaderboardBody)))
	err := whileHeartbeating(ctx, dbURL, func() {
		results = append(results, httpPhase("search-changing", "GET "+whileChanging(), filteredReq))
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// usersCeilings measures the routes' statements as plain SQL on a pool of clients connections,
// in the order of usersRoutes.
func usersCeilings(ctx context.Context, dbURL string, clients int, d time.Duration, servePid int) ([]result, error) {
	var results []result
	err := withPool(ctx, dbURL, clients, func(pool *pgxpool.Pool) error {
		users := readmodels.NewUsers(pool)
		minXP := int64(1000)
		all := readmodels.UserQuery{Limit: 25, Scan: 400}
		filtered := readmodels.UserQuery{Q: "user 1", Domains: []string{"defi"}, MinXP: &minXP, Limit: 25, Scan: 400}
		search := func(q readmodels.UserQuery) func(int) error {
			return func(int) error {
				q.Now = time.Now()
				_, _, err := users.Search(ctx, q)
				return err
			}
		}
		results = append(results,
			measured(servePid, "ceiling", "ceiling: the search (no filter) as plain SQL", clients, d, search(all)),
			measured(servePid, "ceiling", "ceiling: the filtered search as plain SQL", clients, d, search(filtered)),
			measured(servePid, "ceiling", "ceiling: the leaderboard's two statements as plain SQL", clients, d, func(int) error {
				top, err := users.Leaderboard(ctx, 100)
				if err != nil {
					return err
				}
				wallets := make([]string, len(top))
				for i, u := range top {
					wallets[i] = u.Wallet
				}
				_, err = users.FollowCounts(ctx, wallets)
				return err
			}))
		return whileHeartbeating(ctx, dbURL, func() {
			results = append(results, measured(servePid, "ceiling", "ceiling: "+whileChanging()+" as plain SQL", clients, d, search(filtered)))
		})
	})
	return results, err
}

// whileHeartbeating runs phase while a writer updates a random user's heartbeat
// heartbeatsPerSecond times a second, each its own statement (and NOTIFY).
func whileHeartbeating(ctx context.Context, dbURL string, phase func()) error {
	return withPool(ctx, dbURL, 1, func(pool *pgxpool.Pool) error {
		wctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			tick := time.NewTicker(time.Second / heartbeatsPerSecond)
			defer tick.Stop()
			for i := 1; ; i++ {
				select {
				case <-wctx.Done():
					done <- nil
					return
				case <-tick.C:
				}
				wallet := fmt.Sprintf("0x%040x", 1+(i*7919)%seededUsers)
				if _, err := pool.Exec(wctx, `UPDATE users SET last_heartbeat = now(), last_seen = now() WHERE wallet = $1`, wallet); err != nil && wctx.Err() == nil {
					done <- fmt.Errorf("heartbeat: %w", err)
					return
				}
			}
		}()
		phase()
		stop()
		return <-done
	})
}

// printUsers prints the users phases: each HTTP route, then its ceiling.
func printUsers(rs []result) {
	if len(rs) == 0 {
		return
	}
	fmt.Printf("\nUsers (%d seeded, %d follows each):\n| measure | requests/s | p50 | p99 | errors | of ceiling |\n|---|---|---|---|---|---|\n", seededUsers, followsPerUser)
	half := len(rs) / 2
	for i, r := range rs {
		share := ""
		if i < half && rs[i+half].perSecond > 0 {
			share = fmt.Sprintf("%.0f%%", 100*r.perSecond/rs[i+half].perSecond)
		}
		fmt.Printf("| %s | %.0f | %s | %s | %d of %d | %s |\n", r.name, r.perSecond, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.errors, r.requests, share)
	}
	fmt.Printf("\nCPU per request (µs):\n| phase | PostgreSQL | serve | client | machine busy |\n|---|---|---|---|---|\n")
	for _, r := range rs {
		per := func(d time.Duration) string {
			return fmt.Sprintf("%.0f", float64(d.Microseconds())/float64(max(r.requests, 1)))
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.name, per(r.cpu.postgres), per(r.cpu.serve), per(r.cpu.client), per(r.cpu.busy))
	}
}
