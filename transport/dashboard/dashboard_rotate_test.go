package dashboard_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/transport"
)

// The settings page offers each endpoint a "Rotate secret" form on the rotation route, which
// shows the answer's endpoint.secret; the body dash.js sends for it ({}) is accepted.
func TestDashboardSettingsRotatesAnEndpointSecret(t *testing.T) {
	e := dashEnv(t, func(c *transport.Config) { c.Production = false })
	m := e.Merchant(false)
	id, first := e.CreateEndpoint(m, "https://hooks.example/rotate", "*")
	_, page, _ := e.Get("/dashboard/settings", m.Cookies)
	form := `<form data-api="/api/webhooks/endpoints/` + id + `/secret/rotate" data-method="POST" data-show="endpoint.secret">`
	if !strings.Contains(page, form) {
		t.Fatalf("settings page lacks %s:\n%s", form, page)
	}
	rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/webhooks/endpoints/"+id+"/secret/rotate", "{}")
	var out struct {
		Endpoint struct {
			Secret string `json:"secret"`
		} `json:"endpoint"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil || !strings.HasPrefix(out.Endpoint.Secret, "whsec_") || out.Endpoint.Secret == first {
		t.Fatalf("the form's call: %d %s", rec.Code, rec.Body)
	}
	if _, page, _ = e.Get("/dashboard/settings", m.Cookies); strings.Contains(page, "whsec_") {
		t.Error("the page shows a secret")
	}
}
