package transport

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/payledger/payledger/readmodels"
)

// TestUserTextRefusesControlCharacters: a display name, a profile list entry or a presence
// platform is shown to every key holder's users (search, live list, GraphQL leaderboard), so it
// follows a shop name's rule: no control characters (a terminal escape) and no bidirectional
// embeddings, overrides or isolates (U+202E makes "evil" read as "live"). They were stored and
// served as given. The direction marks real right-to-left names carry stay allowed.
func TestUserTextRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	for _, tc := range []struct{ name, path, body string }{
		{"a right-to-left override in displayName", "/api/users/profile", `{"displayName":"\u202elive"}`},
		{"a terminal escape in displayName", "/api/users/profile", `{"displayName":"a\u001b[31mred"}`},
		{"an isolate in displayName", "/api/users/profile", `{"displayName":"x\u2066y"}`},
		{"a control character in domains", "/api/users/profile", `{"domains":["\u0007bell"]}`},
		{"an override in languages", "/api/users/profile", `{"languages":["en\u202d"]}`},
		{"an override in the presence platform", "/api/users/presence", `{"live":true,"platform":"\u202ex"}`},
		{"a line break in the presence platform", "/api/users/presence", `{"live":true,"platform":"a\nb"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, tc.path, tc.body)
			if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
		})
	}
	if u, err := readmodels.NewUsers(e.pool).Get(context.Background(), m.wallet); err == nil {
		t.Fatalf("a refused write stored the user: %+v", u)
	}
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/users/profile", `{"displayName":"\u05d3\u05e0\u200f 1","languages":["he"]}`)
	if rec.Code != 200 {
		t.Fatalf("a Hebrew name with a direction mark: %d %s", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodGet, "/api/users/search?domains="+url.QueryEscape("\u202e"), ""); rec.Code != 400 {
		t.Fatalf("a search list entry no profile can hold: %d %s", rec.Code, rec.Body)
	}
}
