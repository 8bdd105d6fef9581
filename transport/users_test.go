package transport

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/readmodels"
)

var (
	userA = "0x" + strings.Repeat("a", 40)
	userB = "0x" + strings.Repeat("1", 40)
	userC = "0x" + strings.Repeat("2", 40)
	userD = "0x" + strings.Repeat("3", 40)
)

// seedUsers stores four users (A 500 XP live and public, B 300 live not public, C 300 live with
// a stale heartbeat, D 100 offline) and 120 fillers with 0 XP.
func (e *env) seedUsers() {
	e.t.Helper()
	now := e.clk.Now()
	_, err := e.pool.Exec(context.Background(), `
		INSERT INTO users (wallet, display_name, xp, domains, platforms, languages, live, space_public, last_heartbeat, last_seen, live_since, space_url, platform) VALUES
		($1, 'Alice Smith', 500, '{defi,nft}', '{x,youtube}', '{en,fr}', true, true, $5::timestamptz - interval '30 seconds', $5, $5::timestamptz - interval '1 hour', 'https://space.example/a', 'x'),
		($2, 'BOB', 300, '{defi}', '{x}', '{en}', true, false, $5::timestamptz - interval '30 seconds', $5, $5, '', ''),
		($3, 'carol', 300, '{nft}', '{}', '{es}', true, true, $5::timestamptz - interval '3 minutes', $5, $5, '', ''),
		($4, 'Dave', 100, '{}', '{}', '{}', false, true, NULL, NULL, NULL, '', '');
		`, userA, userB, userC, userD, now)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO users (wallet, display_name)
		SELECT '0xf' || lpad(i::text, 39, '0'), 'filler ' || i FROM generate_series(1, 120) i`); err != nil {
		e.t.Fatal(err)
	}
}

func TestUserSearchFiltersAndClamps(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.seedUsers()
	m := e.merchant(false)
	filler := func(n int) string { return "0xf" + fmt.Sprintf("%039d", n) }
	for _, tc := range []struct {
		name, query string
		total, n    int      // total, and how many users are returned
		first       []string // the first wallets, in order
	}{
		{"defaults", "", 124, 25, []string{userA, userB, userC, userD, filler(1)}},
		{"limit=0 clamps to 1", "limit=0", 124, 1, []string{userA}},
		{"negative limit clamps to 1", "limit=-5", 124, 1, []string{userA}},
		{"limit=1000 clamps to 100", "limit=1000", 124, 100, []string{userA}},
		{"scan below the default limit is raised to it", "scan=2", 25, 25, []string{userA, userB}},
		{"scan below limit is raised to limit", "scan=2&limit=3", 3, 3, []string{userA, userB, userC}},
		{"scan reads only the highest-XP users", "limit=2&scan=3", 3, 2, []string{userA, userB}},
		{"scan above 1000 clamps", "scan=5000", 124, 25, []string{userA}},
		{"filters apply after the scan", "minXp=300&scan=1&limit=1", 1, 1, []string{userA}},
		{"q matches display names case-insensitively", "q=ALICE", 1, 1, []string{userA}},
		{"q lower-case matches an upper-case name", "q=bob", 1, 1, []string{userB}},
		{"q matches wallets case-insensitively", "q=0X2222", 1, 1, []string{userC}},
		{"q is a substring match", "q=ave", 1, 1, []string{userD}},
		{"q treats % literally", "q=%25", 0, 0, nil},
		{"domains: one", "domains=defi", 2, 2, []string{userA, userB}},
		{"domains: all must match", "domains=defi,nft", 1, 1, []string{userA}},
		{"platforms", "platforms=x", 2, 2, []string{userA, userB}},
		{"platforms: all must match", "platforms=x,youtube", 1, 1, []string{userA}},
		{"languages", "languages=en,fr", 1, 1, []string{userA}},
		{"languages: another", "languages=es", 1, 1, []string{userC}},
		{"minXp inclusive", "minXp=300", 3, 3, []string{userA, userB, userC}},
		{"maxXp inclusive", "minXp=100&maxXp=300", 3, 3, []string{userB, userC, userD}},
		{"maxXp=0", "maxXp=0&limit=1", 120, 1, []string{filler(1)}},
		{"minXp above maxXp gives none", "minXp=400&maxXp=300", 0, 0, nil},
		{"live: only live, public, fresh heartbeat", "live=true", 1, 1, []string{userA}},
		{"live=false does not filter", "live=false&limit=1", 124, 1, []string{userA}},
		{"filters combine", "q=o&domains=defi&live=true", 0, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := e.dev(m, http.MethodGet, "/api/users/search?"+tc.query, "")
			if rec.Code != 200 {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			body := decode(t, rec)
			users := body["users"].([]any)
			if int(body["total"].(float64)) != tc.total || len(users) != tc.n {
				t.Fatalf("total %v, %d users; want %d, %d", body["total"], len(users), tc.total, tc.n)
			}
			for i, w := range tc.first {
				if got := users[i].(map[string]any)["wallet"]; got != w {
					t.Fatalf("users[%d] = %v, want %s", i, got, w)
				}
			}
		})
	}
	for _, q := range []string{"minXp=-1", "maxXp=-1", "minXp=abc", "maxXp=NaN", "limit=abc", "scan=x", "live=maybe"} {
		t.Run("400 "+q, func(t *testing.T) {
			rec := e.dev(m, http.MethodGet, "/api/users/search?"+q, "")
			if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
		})
	}
	t.Run("user fields", func(t *testing.T) {
		users := decode(t, e.dev(m, http.MethodGet, "/api/users/search?minXp=300", ""))["users"].([]any)
		a, c := users[0].(map[string]any), users[2].(map[string]any)
		if a["displayName"] != "Alice Smith" || a["xp"] != 500.0 || a["live"] != true || a["lastHeartbeat"].(float64) <= 0 ||
			len(a["domains"].([]any)) != 2 || len(a["platforms"].([]any)) != 2 || len(a["languages"].([]any)) != 2 {
			t.Fatalf("A: %v", a)
		}
		if c["live"] != false { // stale heartbeat
			t.Fatalf("C: %v", c)
		}
		if _, leaked := a["spacePublic"]; leaked {
			t.Fatalf("spacePublic is internal: %v", a)
		}
	})
	t.Run("scope", func(t *testing.T) {
		other := e.key(m.wallet, "receipts:read")
		for _, path := range []string{"/api/users/search", "/api/users/live"} {
			rec := e.do(req{method: http.MethodGet, path: path, header: map[string]string{"Ocp-Apim-Subscription-Key": other}})
			if rec.Code != 403 {
				t.Fatalf("%s without users:read: %d", path, rec.Code)
			}
		}
	})
}

// TestUserSearchListsAreBounded: domains, platforms and languages are checked as a profile's own
// lists are (at most 20 entries of 1 to 32 characters). Unbounded, each entry was compared with
// every scanned user's list: 300,000 entries cost 8 s a request.
func TestUserSearchListsAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.seedUsers()
	m := e.merchant(false)
	entries := func(n int, entry string) string { return strings.TrimSuffix(strings.Repeat(entry+",", n), ",") }
	for _, name := range []string{"domains", "platforms", "languages"} {
		for _, tc := range []struct {
			what, value string
			ok          bool
		}{
			{"20 entries", entries(20, "defi"), true},
			{"20 entries and empty ones", entries(20, "defi") + ",,,", true},
			{"an entry of 32 characters", strings.Repeat("%C3%A9", 32), true}, // é: characters, not bytes
			{"21 entries", entries(21, "defi"), false},
			{"300,000 entries", entries(300_000, "x"), false}, // 600 kB: within the server's 1 MB header limit
			{"an entry of 33 characters", strings.Repeat("d", 33), false},
		} {
			t.Run(name+" "+tc.what, func(t *testing.T) {
				rec := e.dev(m, http.MethodGet, "/api/users/search?scan=1000&"+name+"="+tc.value, "")
				body := decode(t, rec)
				if tc.ok && rec.Code != 200 {
					t.Fatalf("%d %s", rec.Code, rec.Body)
				}
				msg, _ := body["message"].(string)
				if !tc.ok && (rec.Code != 400 || body["error"] != "invalid_input" || !strings.HasPrefix(msg, name+" ")) {
					t.Fatalf("%d %s", rec.Code, rec.Body)
				}
			})
		}
	}
}

func TestUsersLiveWindow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.seedUsers()
	m := e.merchant(false)
	live := func() []string {
		t.Helper()
		rec := e.dev(m, http.MethodGet, "/api/users/live", "")
		if rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		var out []string
		for _, u := range decode(t, rec)["live"].([]any) {
			out = append(out, u.(map[string]any)["wallet"].(string))
		}
		return out
	}
	got := live()
	if len(got) != 1 || got[0] != userA { // B is not public, C's heartbeat is 3 minutes old, D is offline
		t.Fatalf("live: %v", got)
	}
	rec := e.dev(m, http.MethodGet, "/api/users/live", "")
	a := decode(t, rec)["live"].([]any)[0].(map[string]any)
	if a["spaceUrl"] != "https://space.example/a" || a["platform"] != "x" || a["liveSince"].(float64) <= 0 || len(a["languages"].([]any)) != 2 {
		t.Fatalf("live user: %v", a)
	}
	e.clk.Advance(90 * time.Second) // A's heartbeat is 120 s old: still inside the window
	if got := live(); len(got) != 1 {
		t.Fatalf("at 2 minutes: %v", got)
	}
	e.clk.Advance(time.Second)
	if got := live(); len(got) != 0 {
		t.Fatalf("after 2 minutes: %v", got)
	}
}

func TestUserPresenceAndProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	dev := e.merchant(false)
	post := func(path, body string) map[string]any {
		t.Helper()
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, path, body)
		if rec.Code != 200 {
			t.Fatalf("%s %s: %d %s", path, body, rec.Code, rec.Body)
		}
		return decode(t, rec)["user"].(map[string]any)
	}
	isLive := func() bool {
		for _, u := range decode(t, e.dev(dev, http.MethodGet, "/api/users/live", ""))["live"].([]any) {
			if u.(map[string]any)["wallet"] == m.wallet {
				return true
			}
		}
		return false
	}
	u := post("/api/users/profile", `{"displayName":"Mia","pfpUrl":"https://img.example/m.png","languages":["en"],"domains":["art"],"platforms":["twitch"]}`)
	if u["displayName"] != "Mia" || u["spacePublic"] != false || u["wallet"] != m.wallet {
		t.Fatalf("profile: %v", u)
	}
	u = post("/api/users/presence", `{"live":true,"spaceUrl":"https://twitch.tv/mia","platform":"twitch"}`)
	since := u["liveSince"].(float64)
	if since != float64(e.clk.Now().UnixMilli()) || u["lastHeartbeat"] != since || u["lastSeen"] != since || u["live"] != true {
		t.Fatalf("presence: %v", u)
	}
	if isLive() {
		t.Fatal("live without spacePublic")
	}
	if u = post("/api/users/profile", `{"spacePublic":true}`); u["displayName"] != "Mia" || u["spacePublic"] != true {
		t.Fatalf("a partial profile update changed other fields: %v", u)
	}
	if !isLive() {
		t.Fatal("not live with spacePublic")
	}
	e.clk.Advance(100 * time.Second)
	u = post("/api/users/presence", `{"live":true}`)
	if u["liveSince"] != since || u["spaceUrl"] != "https://twitch.tv/mia" || u["lastHeartbeat"].(float64) != float64(e.clk.Now().UnixMilli()) {
		t.Fatalf("a heartbeat inside the window keeps liveSince and the space: %v", u)
	}
	e.clk.Advance(121 * time.Second)
	if isLive() {
		t.Fatal("live after 2 minutes without a heartbeat")
	}
	u = post("/api/users/presence", `{"live":true}`)
	if u["liveSince"].(float64) != float64(e.clk.Now().UnixMilli()) || !isLive() {
		t.Fatalf("going live again starts a new liveSince: %v", u)
	}
	u = post("/api/users/presence", `{"live":false}`)
	if u["liveSince"] != 0.0 || u["live"] != false || isLive() {
		t.Fatalf("going offline: %v", u)
	}

	for _, tc := range []struct{ name, path, body string }{
		{"empty displayName", "/api/users/profile", `{"displayName":""}`},
		{"blank displayName", "/api/users/profile", `{"displayName":"   "}`},
		{"displayName over 64", "/api/users/profile", `{"displayName":"` + strings.Repeat("x", 65) + `"}`},
		{"displayName not a string", "/api/users/profile", `{"displayName":5}`},
		{"pfpUrl http", "/api/users/profile", `{"pfpUrl":"http://img.example/a.png"}`},
		{"pfpUrl not a URL", "/api/users/profile", `{"pfpUrl":"img"}`},
		{"21 domains", "/api/users/profile", `{"domains":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 21), ",") + `]}`},
		{"a 33-character language", "/api/users/profile", `{"languages":["` + strings.Repeat("l", 33) + `"]}`},
		{"platforms not strings", "/api/users/profile", `{"platforms":[1]}`},
		{"spacePublic not a bool", "/api/users/profile", `{"spacePublic":"yes"}`},
		{"unknown field", "/api/users/profile", `{"xp":1000}`},
		{"presence without live", "/api/users/presence", `{"spaceUrl":"https://a.example"}`},
		{"presence bad spaceUrl", "/api/users/presence", `{"live":true,"spaceUrl":"nope"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, tc.path, tc.body)
			if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
		})
	}
	if u = post("/api/users/profile", `{"displayName":"`+strings.Repeat("é", 64)+`","domains":[`+strings.TrimSuffix(strings.Repeat(`"a",`, 20), ",")+`]}`); u["displayName"] != strings.Repeat("é", 64) {
		t.Fatalf("64 characters and 20 domains are allowed: %v", u)
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/users/profile", body: `{"displayName":"x"}`, cookies: m.cookies}); rec.Code != 403 {
		t.Fatalf("without CSRF: %d", rec.Code)
	}
}

func TestUserFollow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	other, _ := crypto.GenerateKey()
	them := walletOf(other)
	users := readmodels.NewUsers(e.pool)
	follows := func() bool {
		ok, err := users.Follows(context.Background(), m.wallet, them)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	call := func(method, wallet string) (int, map[string]any) {
		rec := e.adminCall(m.cookies, m.csrf, method, "/api/users/follow", `{"wallet":"`+wallet+`"}`)
		return rec.Code, decode(t, rec)
	}
	if code, body := call(http.MethodPost, "0x"+strings.ToUpper(them[2:])); code != 200 || body["following"] != true || !follows() {
		t.Fatalf("follow: %d %v", code, body)
	}
	if code, _ := call(http.MethodPost, them); code != 200 || !follows() {
		t.Fatalf("follow again: %d", code)
	}
	for _, w := range []string{m.wallet, "0x" + strings.ToUpper(m.wallet[2:])} {
		if code, body := call(http.MethodPost, w); code != 400 || body["error"] != "invalid_input" {
			t.Fatalf("self-follow %s: %d %v", w, code, body)
		}
	}
	if code, _ := call(http.MethodPost, "0x123"); code != 400 {
		t.Fatalf("bad wallet: %d", code)
	}
	if code, body := call(http.MethodDelete, them); code != 200 || body["following"] != false || follows() {
		t.Fatalf("unfollow: %d %v", code, body)
	}
	if code, _ := call(http.MethodDelete, them); code != 200 {
		t.Fatalf("unfollow again: %d", code)
	}
	if code, _ := call(http.MethodDelete, m.wallet); code != 400 {
		t.Fatalf("self-unfollow: %d", code)
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/users/follow", body: `{"wallet":"` + them + `"}`, cookies: m.cookies}); rec.Code != 403 {
		t.Fatalf("without CSRF: %d", rec.Code)
	}
}

// downUsers is a user store whose datastore does not answer.
type downUsers struct{ UserStore }

func (downUsers) Search(context.Context, readmodels.UserQuery) ([]readmodels.User, int, error) {
	return nil, 0, fmt.Errorf("search users: %w", net.ErrClosed)
}

func (downUsers) Live(context.Context, time.Time, int) ([]readmodels.User, error) {
	return nil, fmt.Errorf("live users: %w", net.ErrClosed)
}

func TestUserReadsDegradedBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Users = downUsers{d.Users} })
	m := e.merchant(false)
	rec := e.dev(m, http.MethodGet, "/api/users/search?q=a", "")
	body := decode(t, rec)
	if rec.Code != 200 || body["degraded"] != true || body["reason"] != "datastore_unavailable" || len(body["users"].([]any)) != 0 {
		t.Fatalf("search: %d %v", rec.Code, body)
	}
	if _, ok := body["total"]; ok {
		t.Fatalf("the degraded search body has no total: %v", body)
	}
	rec = e.dev(m, http.MethodGet, "/api/users/live", "")
	body = decode(t, rec)
	if rec.Code != 200 || body["degraded"] != true || body["reason"] != "datastore_unavailable" || len(body["live"].([]any)) != 0 {
		t.Fatalf("live: %d %v", rec.Code, body)
	}
	// A bad parameter is still 400, not a degraded body.
	if rec := e.dev(m, http.MethodGet, "/api/users/search?minXp=-1", ""); rec.Code != 400 {
		t.Fatalf("minXp=-1 while degraded: %d", rec.Code)
	}
}

// TestUserWritesAreReadAtOnce: the cases, each read at once after its 200 (DESIGN 9,
// read-your-writes): a new user found by its wallet, a renamed one by its new name, presence off
// in the search, and GraphQL follow counts after three follows and an unfollow.
func TestUserWritesAreReadAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.seedUsers()
	m, dev := e.merchant(false), e.merchant(false)
	post := func(method, path, body string) {
		t.Helper()
		if rec := e.adminCall(m.cookies, m.csrf, method, path, body); rec.Code != 200 {
			t.Fatalf("%s %s: %d %s", path, body, rec.Code, rec.Body)
		}
	}
	search := func(query string) []any {
		t.Helper()
		users, _ := decode(t, e.dev(dev, http.MethodGet, "/api/users/search?"+query, ""))["users"].([]any)
		return users
	}
	search("scan=1000") // the window is read before the writes
	post(http.MethodPost, "/api/users/profile", `{"displayName":"First name","spacePublic":true}`)
	if users := search("q=" + m.wallet); len(users) != 1 || users[0].(map[string]any)["displayName"] != "First name" {
		t.Fatalf("a new user by its wallet: %v", users)
	}
	post(http.MethodPost, "/api/users/profile", `{"displayName":"Renamed at once"}`)
	if users := search("q=" + m.wallet); len(users) != 1 || users[0].(map[string]any)["displayName"] != "Renamed at once" {
		t.Fatalf("a renamed user: %v", users)
	}
	post(http.MethodPost, "/api/users/presence", `{"live":true}`)
	if users := search("live=true&q=" + m.wallet); len(users) != 1 {
		t.Fatalf("a user gone live: %v", users)
	}
	post(http.MethodPost, "/api/users/presence", `{"live":false}`)
	if users := search("q=" + m.wallet); len(users) != 1 || users[0].(map[string]any)["live"] != false {
		t.Fatalf("a user gone offline: %v", users)
	}
	for _, w := range []string{userA, userB, userC} {
		post(http.MethodPost, "/api/users/follow", `{"wallet":"`+w+`"}`)
	}
	post(http.MethodDelete, "/api/users/follow", `{"wallet":"`+userB+`"}`)
	var got struct{ FollowerCount, FollowingCount int }
	_, r := e.graphql(dev.key, `query($w: String!) { user(wallet: $w) { followerCount followingCount } }`, map[string]any{"w": m.wallet})
	r.ok(t, "user", &got)
	if got.FollowerCount != 0 || got.FollowingCount != 2 {
		t.Fatalf("counts after 3 follows and an unfollow: %+v, want 0 followers and 2 followed", got)
	}
	_, r = e.graphql(dev.key, `query($w: String!) { user(wallet: $w) { followerCount followingCount } }`, map[string]any{"w": userB})
	r.ok(t, "user", &got)
	if got.FollowerCount != 0 {
		t.Fatalf("the unfollowed user's counts: %+v", got)
	}
}

// A user who is live but not listed publicly (spacePublic false: B) is not shown live to others,
// in a search or through GraphQL, and its last heartbeat is withheld; its own profile still shows
// it (stop 60: searches and GraphQL showed what /api/users/live withholds).
func TestPresenceOfAPrivateUserIsWithheld(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.seedUsers()
	m := e.merchant(false)
	seen := map[string]map[string]any{}
	for _, u := range decode(t, e.dev(m, http.MethodGet, "/api/users/search?minXp=300", ""))["users"].([]any) {
		seen[u.(map[string]any)["wallet"].(string)] = u.(map[string]any)
	}
	if a, b := seen[userA], seen[userB]; a["live"] != true || a["lastHeartbeat"].(float64) <= 0 || b["live"] != false || b["lastHeartbeat"] != float64(0) {
		t.Fatalf("search: public A %v, private B %v; want A live, B not live without a heartbeat", a, b)
	}
	key := e.key(m.wallet, "graphql:read")
	_, r := e.graphql(key, `query($w: String!) { user(wallet: $w) { wallet live lastHeartbeat } }`, map[string]any{"w": userB})
	var u gqlUser
	r.ok(t, "user", &u)
	if u.Live || u.LastHeartbeat != 0 {
		t.Fatalf("GraphQL user B: %+v, want not live without a heartbeat", u)
	}
}
