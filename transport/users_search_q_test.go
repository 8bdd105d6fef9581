package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestUserSearchTextIsBounded: the search's q is matched by ILIKE against up to 1,000 rows; any
// length was taken, up to the server's header limit. Past 200 characters it is 400 invalid_input.
func TestUserSearchTextIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	if rec := e.dev(m, http.MethodGet, "/api/users/search?q="+strings.Repeat("%C3%A9", 200), ""); rec.Code != 200 {
		t.Fatalf("200 characters: %d %s", rec.Code, rec.Body)
	}
	rec := e.dev(m, http.MethodGet, "/api/users/search?q="+strings.Repeat("a", 201), "")
	if body := decode(t, rec); rec.Code != 400 || body["error"] != "invalid_input" || !strings.HasPrefix(body["message"].(string), "q ") {
		t.Fatalf("201 characters: %d %s", rec.Code, rec.Body)
	}
}
