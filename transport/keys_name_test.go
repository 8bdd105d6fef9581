package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestKeyNameCountsCharacters: a key's name is at most 100 characters, as its message and the
// dashboard form's maxlength say, not 100 bytes (a 60-character name with accents was refused);
// a control or bidi character is refused as in every other name the dashboard shows, and a
// refused name creates no key.
func TestKeyNameCountsCharacters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	create := func(name string) int {
		body := `{"name":"` + name + `","scopes":["receipts:read"]}`
		return e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/admin/keys", body).Code
	}
	for _, tc := range []struct {
		name string
		want int
	}{
		{strings.Repeat("é", 100), http.StatusCreated},
		{strings.Repeat("キ", 60), http.StatusCreated},
		{strings.Repeat("é", 101), http.StatusBadRequest},
		{`caf\u00e9 \u202e`, http.StatusBadRequest},
		{`till\u001b[31m`, http.StatusBadRequest},
	} {
		if got := create(tc.name); got != tc.want {
			t.Errorf("name %q: %d, want %d", tc.name, got, tc.want)
		}
	}
	rec := e.adminCall(m.cookies, m.csrf, http.MethodGet, "/api/admin/keys", "")
	if n := strings.Count(rec.Body.String(), `"name":`); n != 3 { // e.merchant's and the two accepted
		t.Fatalf("%d keys listed, want 3: %s", n, rec.Body.String())
	}
}
