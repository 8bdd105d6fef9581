package transport

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestEndedCredentialsOpenNoRoute (stop 73, second probe): every registered route, sent a key
// revoked through the API and a session ended by logout (with its CSRF token), refuses it as it
// refuses no credential: 401 in the envelope on the key, session and key-or-session routes; the
// dashboard's pages send the ended session to the sign-in page. TestEveryRouteHasAnAuthDecision
// walks live credentials only.
func TestEndedCredentialsOpenNoRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/admin/keys", fmt.Sprintf(`{"name":"gone","scopes":%s}`, scopesJSON()))
	if rec.Code != http.StatusCreated {
		t.Fatalf("create key: %d %s", rec.Code, rec.Body)
	}
	created := decode(t, rec)
	revoked := created["key"].(string)
	if r := e.adminCall(m.cookies, m.csrf, http.MethodDelete, "/api/admin/keys/"+created["apiKey"].(map[string]any)["id"].(string), ""); r.Code != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.Code, r.Body)
	}
	ended, csrf := e.login(m.priv)
	if r := e.adminCall(ended, csrf, http.MethodPost, "/api/auth/logout", ""); r.Code != http.StatusOK {
		t.Fatalf("logout: %d %s", r.Code, r.Body)
	}
	creds := []struct {
		name    string
		header  map[string]string
		cookies bool
	}{
		{"revoked key", map[string]string{"Ocp-Apim-Subscription-Key": revoked}, false},
		{"revoked key as bearer", map[string]string{"Authorization": "Bearer " + revoked}, false},
		{"ended session", map[string]string{CSRFHeader: csrf}, true},
	}
	remote := 0
	for _, r := range e.srv.Routes() {
		path := strings.ReplaceAll(strings.ReplaceAll(r.Path, ":id", uuid.NewString()), ":eventId", uuid.NewString())
		body := ""
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			body = "{}"
		}
		for _, c := range creds {
			remote++
			q := req{method: r.Method, path: path, body: body, header: map[string]string{},
				remote: fmt.Sprintf("10.%d.%d.1:1000", remote/250, remote%250)}
			for k, v := range c.header {
				q.header[k] = v
			}
			if r.Path == "/api/webhooks/stream" {
				q.header["Last-Event-ID"] = "x"
			}
			if c.cookies {
				q.cookies = ended
			}
			got := e.do(q)
			switch r.Policy.Access {
			case Developer, Admin, KeyOrSession:
				if got.Code != http.StatusUnauthorized {
					t.Errorf("%s %s with a %s: %d %s, want 401", r.Method, r.Path, c.name, got.Code, clip(got.Body.String()))
				} else if env := decode(t, got); env["error"] != "unauthorized" {
					t.Errorf("%s %s with a %s: envelope %v", r.Method, r.Path, c.name, env)
				}
			case Public:
				if c.cookies && strings.HasPrefix(r.Path, "/dashboard") && r.Method == http.MethodGet &&
					!strings.HasPrefix(r.Path, "/dashboard/login") && got.Code != http.StatusSeeOther {
					t.Errorf("%s %s with an %s: %d, want 303 to the sign-in page", r.Method, r.Path, c.name, got.Code)
				}
			}
		}
	}
}

func scopesJSON() string {
	return `["` + strings.Join(Scopes, `","`) + `"]`
}
