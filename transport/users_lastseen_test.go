package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestLastSeenOfAPrivateUserIsWithheld: only a heartbeat writes lastSeen, with the heartbeat's
// own time, so a search or GraphQL showing a private user's lastSeen told others when its last
// heartbeat was, to the millisecond, although its lastHeartbeat and live were withheld. Others
// now see 0 until the user lists itself publicly; the user's own answer still carries it.
func TestLastSeenOfAPrivateUserIsWithheld(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m, dev := e.merchant(false), e.merchant(false)
	me := strings.ToLower(m.wallet)
	heartbeat := e.clk.Now().UnixMilli()
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/users/presence", `{"live":true}`)
	if rec.Code != 200 || decode(t, rec)["user"].(map[string]any)["lastSeen"] != float64(heartbeat) {
		t.Fatalf("own presence: %d %s", rec.Code, rec.Body)
	}
	seen := func() (search, graphql float64) {
		t.Helper()
		users := decode(t, e.dev(dev, http.MethodGet, "/api/users/search?q="+me, ""))["users"].([]any)
		if len(users) != 1 {
			t.Fatalf("search: %v", users)
		}
		var u struct{ LastSeen float64 }
		_, r := e.graphql(dev.key, `query($w: String!) { user(wallet: $w) { lastSeen } }`, map[string]any{"w": me})
		r.ok(t, "user", &u)
		return users[0].(map[string]any)["lastSeen"].(float64), u.LastSeen
	}
	if s, g := seen(); s != 0 || g != 0 {
		t.Fatalf("a private user's lastSeen: search %v, GraphQL %v; want 0 (withheld)", s, g)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/users/profile", `{"spacePublic":true}`); rec.Code != 200 ||
		decode(t, rec)["user"].(map[string]any)["lastSeen"] != float64(heartbeat) {
		t.Fatalf("own profile: %d %s", rec.Code, rec.Body)
	}
	if s, g := seen(); s != float64(heartbeat) || g != float64(heartbeat) {
		t.Fatalf("a public user's lastSeen: search %v, GraphQL %v; want %d", s, g, heartbeat)
	}
}
