package transport

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestProbe74ConcurrentFirstWritesAreNever500 (stop 74 probe): the writes whose first use inserts
// a row under a unique key (a shop slug, a profile, a follow, a split address, an inventory SKU,
// a presence, a session cutoff), sent 8 at once by one merchant and by two merchants competing for the
// same key, answer 2xx or a 4xx in the envelope, never a 500 of a unique violation. A guard: it
// passed on the first run.
func TestProbe74ConcurrentFirstWritesAreNever500(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a, b := e.merchant(false), e.merchant(false)
	target := "0x" + strings.Repeat("5", 40)
	split := "0x" + strings.Repeat("6", 40)
	writes := []struct{ method, path, body, auth string }{
		{"POST", "/api/shop/config", `{"slug":"same-slug-74","name":"S"}`, "session"},
		{"POST", "/api/users/profile", `{"displayName":"P"}`, "session"},
		{"POST", "/api/users/follow", `{"wallet":"` + target + `"}`, "session"},
		{"DELETE", "/api/users/follow", `{"wallet":"` + target + `"}`, "session"},
		{"POST", "/api/split/deploy", `{"splitAddress":"` + split + `"}`, "session"},
		{"POST", "/api/inventory", `{"sku":"same","name":"I","priceUsd":1}`, "key"},
		{"POST", "/api/users/presence", `{"live":true}`, "session"},
		{"POST", "/api/auth/logout-all", "", "session"}, // last: it ends the sessions
	}
	for _, w := range writes {
		var wg sync.WaitGroup
		for i := range 16 {
			m := a
			if i%2 == 1 {
				m = b
			}
			wg.Go(func() {
				rec := e.concurrentSend(m, w.method, w.path, w.body, w.auth)
				var env map[string]any
				if rec.Code >= 500 || (rec.Code >= 400 && (json.Unmarshal(rec.Body.Bytes(), &env) != nil || env["error"] == nil)) {
					t.Errorf("%s %s: %d %s", w.method, w.path, rec.Code, clip(rec.Body.String()))
				}
			})
		}
		wg.Wait()
	}
}

// concurrentSend is crossSend with a body of any method and the merchant's credentials.
func (e *env) concurrentSend(m merchant, method, path, body, auth string) *httptest.ResponseRecorder {
	return e.sendAs(m, method, path, body, auth, "10.7.4.2:1000", "Origin", "https://pay.example")
}
