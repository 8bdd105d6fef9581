package transport

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/gql"
)

type gqlResponse struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// graphql posts query (with variables) under key and decodes the answer.
func (e *env) graphql(key, query string, vars map[string]any) (int, gqlResponse) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	rec := e.do(req{method: http.MethodPost, path: "/api/graphql", body: string(body), header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
	var out gqlResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		e.t.Fatalf("graphql answer %d %s: %v", rec.Code, rec.Body, err)
	}
	return rec.Code, out
}

// ok is the field of a successful answer, decoded into v.
func (r gqlResponse) ok(t *testing.T, field string, v any) {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %+v", r.Errors)
	}
	if err := json.Unmarshal(r.Data[field], v); err != nil {
		t.Fatalf("%s: %s: %v", field, r.Data[field], err)
	}
}

func (e *env) follow(follower, followee string) {
	e.t.Helper()
	if err := readmodels.NewUsers(e.pool).Follow(context.Background(), follower, followee, e.clk.Now()); err != nil {
		e.t.Fatal(err)
	}
}

type gqlUser struct {
	Wallet, DisplayName           string
	Xp                            int64
	Live                          bool
	LastHeartbeat                 int64
	Domains                       []string
	FollowerCount, FollowingCount int
}

func TestGraphQLQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.seedUsers()
	e.follow(userA, userB)
	e.follow(userA, userC)
	e.follow(userA, userD)
	e.follow(userB, userA)
	e.follow(userC, userA)
	m := e.merchant(false)
	key := e.key(m.wallet, "graphql:read")
	const fields = `wallet displayName xp live lastHeartbeat domains followerCount followingCount`

	t.Run("user", func(t *testing.T) {
		_, r := e.graphql(key, `query($w: String!) { user(wallet: $w) { `+fields+` } }`, map[string]any{"w": strings.ToUpper(userA[2:])})
		if len(r.Errors) != 0 || string(r.Data["user"]) != "null" {
			t.Fatalf("a wallet without 0x has no user: %s %+v", r.Data["user"], r.Errors)
		}
		_, r = e.graphql(key, `query($w: String!) { user(wallet: $w) { `+fields+` } }`, map[string]any{"w": "0x\u0000"})
		if len(r.Errors) != 0 || string(r.Data["user"]) != "null" {
			t.Fatalf("a wallet with a NUL has no user: %s %+v", r.Data["user"], r.Errors)
		}
		_, r = e.graphql(key, `query($w: String!) { user(wallet: $w) { `+fields+` } }`, map[string]any{"w": "0x" + strings.ToUpper(userA[2:])})
		var u gqlUser
		r.ok(t, "user", &u)
		if u.Wallet != userA || u.DisplayName != "Alice Smith" || u.Xp != 500 || !u.Live || u.LastHeartbeat <= 0 ||
			len(u.Domains) != 2 || u.FollowerCount != 2 || u.FollowingCount != 3 {
			t.Fatalf("A: %+v", u)
		}
	})
	t.Run("follows pages", func(t *testing.T) {
		const q = `query($w: String!, $d: FollowDirection!, $after: String) {
			follows(wallet: $w, direction: $d, first: 2, after: $after) {
				totalCount edges { cursor followedAt node { wallet followerCount } } pageInfo { hasNextPage endCursor } } }`
		type conn struct {
			TotalCount int
			Edges      []struct {
				Cursor     string
				FollowedAt int64
				Node       gqlUser
			}
			PageInfo struct {
				HasNextPage bool
				EndCursor   *string
			}
		}
		var p1, p2, back conn
		_, r := e.graphql(key, q, map[string]any{"w": userA, "d": "FOLLOWING"})
		r.ok(t, "follows", &p1)
		if p1.TotalCount != 3 || len(p1.Edges) != 2 || p1.Edges[0].Node.Wallet != userB || p1.Edges[1].Node.Wallet != userC ||
			!p1.PageInfo.HasNextPage || p1.PageInfo.EndCursor == nil || *p1.PageInfo.EndCursor != p1.Edges[1].Cursor ||
			p1.Edges[0].FollowedAt != e.clk.Now().UnixMilli() || p1.Edges[0].Node.FollowerCount != 1 {
			t.Fatalf("page 1: %+v", p1)
		}
		_, r = e.graphql(key, q, map[string]any{"w": userA, "d": "FOLLOWING", "after": *p1.PageInfo.EndCursor})
		r.ok(t, "follows", &p2)
		if len(p2.Edges) != 1 || p2.Edges[0].Node.Wallet != userD || p2.PageInfo.HasNextPage {
			t.Fatalf("page 2: %+v", p2)
		}
		_, r = e.graphql(key, q, map[string]any{"w": userA, "d": "FOLLOWERS"})
		r.ok(t, "follows", &back)
		if back.TotalCount != 2 || len(back.Edges) != 2 || back.Edges[0].Node.Wallet != userB || back.PageInfo.HasNextPage {
			t.Fatalf("followers: %+v", back)
		}
		_, r = e.graphql(key, q, map[string]any{"w": userA, "d": "FOLLOWING", "after": "not-a-cursor"})
		if len(r.Errors) == 0 || r.Errors[0].Extensions["code"] != "invalid_input" {
			t.Fatalf("a bad cursor: %+v", r)
		}
	})
	t.Run("liveUsers", func(t *testing.T) {
		var live []struct {
			Wallet, SpaceURL string
			LiveSince        int64
			User             gqlUser
		}
		_, r := e.graphql(key, `{ liveUsers { wallet spaceUrl liveSince user { xp followerCount } } }`, nil)
		r.ok(t, "liveUsers", &live)
		if len(live) != 1 || live[0].Wallet != userA || live[0].SpaceURL != "https://space.example/a" || live[0].LiveSince <= 0 ||
			live[0].User.Xp != 500 || live[0].User.FollowerCount != 2 {
			t.Fatalf("live: %+v", live) // B is not public, C's heartbeat is stale
		}
	})
	t.Run("leaderboard with counts", func(t *testing.T) {
		var board []gqlUser
		_, r := e.graphql(key, `{ leaderboard(first: 3) { `+fields+` } }`, nil)
		r.ok(t, "leaderboard", &board)
		if len(board) != 3 || board[0].Wallet != userA || board[1].Wallet != userB || board[2].Wallet != userC ||
			board[0].FollowerCount != 2 || board[0].FollowingCount != 3 || board[1].FollowerCount != 1 || board[1].FollowingCount != 1 {
			t.Fatalf("leaderboard: %+v", board)
		}
		_, r = e.graphql(key, `{ leaderboard { wallet } }`, nil)
		r.ok(t, "leaderboard", &board)
		if len(board) != gql.DefaultFirst {
			t.Fatalf("default first: %d", len(board))
		}
	})
	t.Run("GET", func(t *testing.T) {
		rec := e.do(req{method: http.MethodGet, path: "/api/graphql?query=" + url.QueryEscape(`{ leaderboard(first: 1) { wallet } }`),
			header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), userA) {
			t.Fatalf("GET: %d %s", rec.Code, rec.Body)
		}
	})
}

func TestGraphQLRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.seedUsers()
	m := e.merchant(false)
	key := e.key(m.wallet, "graphql:read")
	// The schema has no recursion of its own; __Type.ofType nests as deep as a client writes it
	// (gqlparser's own rule counts only __Type's list fields).
	deepIntrospection := `{ __type(name: "User") ` + strings.Repeat(`{ ofType `, 16) + `{ name }` + strings.Repeat(` }`, 16) + ` }`
	const allFields = `wallet displayName pfpUrl xp live lastSeen lastHeartbeat domains platforms languages followerCount followingCount`
	for _, tc := range []struct {
		name, query string
		status      int
		contains    string
	}{
		{"a mutation: there is no Mutation type", `mutation { follow(wallet: "0x1") { ok } }`, 422, "mutation"},
		{"first above 100", `{ leaderboard(first: 101) { wallet } }`, 200, "first must be between 0 and 100"},
		{"first below 0", `{ liveUsers(first: -1) { wallet } }`, 200, "first must be between 0 and 100"},
		{"follows first above 100", `{ follows(wallet: "` + userA + `", direction: FOLLOWERS, first: 101) { totalCount } }`, 200, "first must be"},
		{"over the depth limit", deepIntrospection, 200, "exceeds the limit of 15"},
		{"over the complexity limit", `{ a: leaderboard(first: 100) { ` + allFields + ` } b: leaderboard(first: 100) { ` + allFields + ` } }`, 200, "complexity"},
		{"an unknown field", `{ leaderboard { password } }`, 422, "password"},
		// Forged cursors and wallets are refused as input; they used to reach PostgreSQL and fail
		// there (an internal error, code failed).
		{"a forged follows cursor", `{ follows(wallet: "` + userA + `", direction: FOLLOWERS, after: "` +
			base64.RawURLEncoding.EncodeToString([]byte("follow:\x00")) + `") { totalCount } }`, 200, "after is not a cursor"},
		{"a NUL in follows' wallet", `{ follows(wallet: "0x\u0000", direction: FOLLOWERS) { totalCount } }`, 200, "wallet must be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, r := e.graphql(key, tc.query, nil)
			if status != tc.status || len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, tc.contains) {
				t.Fatalf("%d %+v", status, r.Errors)
			}
			if data := string(r.Data["leaderboard"]) + string(r.Data["liveUsers"]); data != "" && data != "null" {
				t.Fatalf("data with the error: %s", data)
			}
		})
	}
	t.Run("a mutation over GET", func(t *testing.T) {
		rec := e.do(req{method: http.MethodGet, path: "/api/graphql?query=" + url.QueryEscape(`mutation { x }`),
			header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
		if rec.Code < 400 || !strings.Contains(rec.Body.String(), "errors") {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	})
	t.Run("one leaderboard of 100 with every field is within the limits", func(t *testing.T) {
		var board []gqlUser
		_, r := e.graphql(key, `{ leaderboard(first: 100) { `+allFields+` } }`, nil)
		r.ok(t, "leaderboard", &board)
	})
	t.Run("introspection is allowed", func(t *testing.T) {
		status, r := e.graphql(key, introspectionQuery, nil)
		if status != 200 || len(r.Errors) != 0 || !strings.Contains(string(r.Data["__schema"]), `"FollowConnection"`) ||
			!strings.Contains(string(r.Data["__schema"]), `"mutationType":null`) {
			t.Fatalf("%d %+v", status, r.Errors)
		}
	})
}

func TestGraphQLScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	good, other := e.key(m.wallet, "graphql:read"), e.key(m.wallet, "users:read")
	q := url.QueryEscape(`{ leaderboard { wallet } }`)
	for _, tc := range []struct {
		name, key string
		status    int
	}{{"no key", "", 401}, {"without graphql:read", other, 403}, {"with graphql:read", good, 200}} {
		for _, r := range []req{
			{method: http.MethodGet, path: "/api/graphql?query=" + q},
			{method: http.MethodPost, path: "/api/graphql", body: `{"query":"{ leaderboard { wallet } }"}`},
		} {
			if tc.key != "" {
				r.header = map[string]string{"Ocp-Apim-Subscription-Key": tc.key}
			}
			if rec := e.do(r); rec.Code != tc.status {
				t.Fatalf("%s %s: %d %s", tc.name, r.method, rec.Code, rec.Body)
			}
		}
	}
}

type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	q.n.Add(1)
	return ctx
}
func (q *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestGraphQLConstantQueries counts the statements sent to PostgreSQL: a leaderboard with both
// follow counts is one list query and one count query, for 1 user or 100, and none once the
// window of the highest-XP users is held in memory.
func TestGraphQLConstantQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	// 100 users with XP 1..100; user i follows every user below it: followers of i = 100-i.
	if _, err := e.pool.Exec(ctx, `INSERT INTO users (wallet, xp) SELECT '0xe' || lpad(i::text, 39, '0'), i FROM generate_series(1, 100) i;
		INSERT INTO follows (follower, followee) SELECT '0xe' || lpad(i::text, 39, '0'), '0xe' || lpad(j::text, 39, '0')
			FROM generate_series(1, 100) i, generate_series(1, 100) j WHERE j < i`); err != nil {
		t.Fatal(err)
	}
	counter := &queryCounter{}
	cfg := e.pool.Config()
	cfg.ConnConfig.Tracer = counter
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	srv := httptest.NewServer(gql.NewHandler(readmodels.NewUsers(pool), e.clk.Now))
	defer srv.Close()
	for _, tc := range []struct {
		query   string
		n       int
		queries int64
		atMost  bool // root fields resolve concurrently: a list's counts may load before another list is known
	}{
		{`{ leaderboard(first: 1) { wallet followerCount followingCount } }`, 1, 2, false},
		{`{ leaderboard(first: 100) { wallet followerCount followingCount } }`, 100, 2, false},
		{`{ leaderboard(first: 100) { wallet xp } }`, 100, 1, false},
		{`{ a: leaderboard(first: 50) { wallet followerCount } b: leaderboard(first: 100) { followingCount } }`, 50, 4, true},
		{`{ liveUsers(first: 100) { user { followerCount } } }`, 0, 1, false},
		{`{ follows(wallet: "0xe` + strings.Repeat("0", 36) + `100", direction: FOLLOWING, first: 100) { totalCount edges { node { followerCount followingCount } } } }`, 0, 2, false},
	} {
		counter.n.Store(0)
		body, _ := json.Marshal(map[string]string{"query": tc.query})
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		var r gqlResponse
		_ = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if len(r.Errors) > 0 {
			t.Fatalf("%s: %+v", tc.query, r.Errors)
		}
		if tc.n > 0 {
			var board []gqlUser
			field := "leaderboard"
			if _, ok := r.Data["a"]; ok {
				field = "a"
			}
			r.ok(t, field, &board)
			top := board[0]
			if len(board) != tc.n || top.Wallet != "0xe"+strings.Repeat("0", 36)+"100" || (strings.Contains(tc.query, "followerCount") && top.FollowerCount != 0) ||
				(strings.Contains(tc.query, "followingCount") && field == "leaderboard" && top.FollowingCount != 99) {
				t.Fatalf("%s: %+v", tc.query, board[:1])
			}
		}
		if got := counter.n.Load(); got != tc.queries && !(tc.atMost && got <= tc.queries) {
			t.Errorf("%s: %d queries, want %d", tc.query, got, tc.queries)
		}
	}

	// As serve runs it, with the window of the highest-XP users in memory: once the window is
	// read, a leaderboard of 100 with both counts sends no query at all.
	inv := cache.NewInvalidations(pool)
	windowed := httptest.NewServer(gql.NewHandler(readmodels.NewUsers(pool).KeepTopInMemory(inv), e.clk.Now))
	defer windowed.Close()
	lctx, stop := context.WithCancel(ctx)
	listening := make(chan struct{})
	go func() { defer close(listening); _ = inv.Run(lctx) }()
	defer func() { stop(); <-listening }()
	body, _ := json.Marshal(map[string]string{"query": `{ leaderboard(first: 100) { wallet followerCount followingCount } }`})
	deadline := time.Now().Add(10 * time.Second)
	for {
		counter.n.Store(0)
		resp, err := http.Post(windowed.URL, "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		var r gqlResponse
		_ = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		var board []gqlUser
		r.ok(t, "leaderboard", &board)
		if len(board) != 100 || board[0].FollowingCount != 99 || board[99].FollowerCount != 99 {
			t.Fatalf("leaderboard from the window: %d users, first %+v, last %+v", len(board), board[0], board[len(board)-1])
		}
		if counter.n.Load() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the leaderboard still sends %d queries with the window kept", counter.n.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// introspectionQuery is graphql-js's getIntrospectionQuery(), as GraphiQL sends it.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`

// TestGraphQLBounds: the work done before an operation's complexity is known is bounded. Repeated
// fields made validation quadratic (24,000 `a:__typename` burned a minute of CPU), aliased
// `__schema` blocks were never costed (900 KB answered 44 MB), and any body up to the server's
// 1 MiB was parsed. Each refusal is asserted, not timed.
func TestGraphQLBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	key := e.key(m.wallet, "graphql:read")
	aliases := func(n int, field string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			b.WriteString(" a" + strconv.Itoa(i) + ":" + field)
		}
		return b.String() + " }"
	}
	for _, tc := range []struct {
		name, query string
		status      int
		code        string
	}{
		// 3,000 tokens, within the complexity limit: refused while parsing.
		{"repeated fields past the token limit", "{" + strings.Repeat(" a:__typename", 1000) + " }", 422, "GRAPHQL_PARSE_FAILED"},
		{"two __schema blocks", `{ a: __schema { queryType { name } } b: __schema { queryType { name } } }`, 200, "INTROSPECTION_LIMIT_EXCEEDED"},
		{"__schema and __type", `{ __schema { queryType { name } } __type(name: "User") { name } }`, 200, "INTROSPECTION_LIMIT_EXCEEDED"},
		{"__schema in a fragment", `{ __schema { queryType { name } } ...F } fragment F on Query { b: __schema { queryType { name } } }`, 200, "INTROSPECTION_LIMIT_EXCEEDED"},
		// 600 distinct aliases (1,800 tokens, complexity 600): past the field limit.
		{"past the field limit", aliases(600, "__typename"), 200, "FIELD_LIMIT_EXCEEDED"},
		{"fragments spread twice over", `{ ...F0 }` + func() string {
			var b strings.Builder
			for i := range 12 {
				b.WriteString(fmt.Sprintf(" fragment F%d on Query { ...F%d ...F%d }", i, i+1, i+1))
			}
			return b.String() + " fragment F12 on Query { __typename }"
		}(), 200, "FIELD_LIMIT_EXCEEDED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, r := e.graphql(key, tc.query, nil)
			if status != tc.status || len(r.Errors) == 0 || r.Errors[0].Extensions["code"] != tc.code || len(r.Data) != 0 {
				t.Fatalf("%d %+v, %d data fields", status, r.Errors, len(r.Data))
			}
		})
	}
	t.Run("within the limits", func(t *testing.T) {
		status, r := e.graphql(key, aliases(400, "__typename"), nil)
		if status != 200 || len(r.Errors) != 0 || len(r.Data) != 400 {
			t.Fatalf("%d %+v %d", status, r.Errors, len(r.Data))
		}
	})
	big := `{ __typename }` + strings.Repeat(" ", 70<<10) // whitespace: no tokens, only bytes
	for _, r := range []req{
		{method: http.MethodPost, path: "/api/graphql", body: `{"query":"` + big + `"}`},
		{method: http.MethodGet, path: "/api/graphql?query=" + url.QueryEscape(big)},
	} {
		r.header = map[string]string{"Ocp-Apim-Subscription-Key": key}
		rec := e.do(r)
		var env struct{ Error string }
		if rec.Code != http.StatusRequestEntityTooLarge || json.Unmarshal(rec.Body.Bytes(), &env) != nil || env.Error != "payload_too_large" {
			t.Fatalf("%s of 70 KiB: %d %s", r.method, rec.Code, rec.Body.String()[:min(rec.Body.Len(), 300)])
		}
	}
}
