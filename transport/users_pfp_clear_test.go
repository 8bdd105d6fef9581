package transport

import (
	"net/http"
	"testing"
)

// A profile picture can be removed: pfpUrl "" clears it (it was refused, "must be an https URL",
// so a picture set by mistake could only be replaced by another); the search shows none then.
// Other texts still refuse what is not an https URL.
func TestUserProfilePictureCanBeRemoved(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	dev := e.merchant(false)
	profile := func(body string) *http.Response {
		t.Helper()
		return e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/users/profile", body).Result()
	}
	if r := profile(`{"displayName":"Mia","pfpUrl":"https://img.example/m.png"}`); r.StatusCode != 200 {
		t.Fatalf("set picture: %d", r.StatusCode)
	}
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/users/profile", `{"pfpUrl":""}`)
	if rec.Code != 200 {
		t.Fatalf("remove picture: %d %s", rec.Code, rec.Body)
	}
	if u := decode(t, rec)["user"].(map[string]any); u["pfpUrl"] != "" || u["displayName"] != "Mia" {
		t.Fatalf("after removing the picture: %v", u)
	}
	found := false
	for _, u := range decode(t, e.dev(dev, http.MethodGet, "/api/users/search?q=mia", ""))["users"].([]any) {
		if u := u.(map[string]any); u["wallet"] == m.wallet {
			found = true
			if u["pfpUrl"] != "" {
				t.Fatalf("search still shows the removed picture: %v", u)
			}
		}
	}
	if !found {
		t.Fatal("the user is not found by its name")
	}
	for _, bad := range []string{`{"pfpUrl":" "}`, `{"pfpUrl":null}`, `{"pfpUrl":"javascript:alert(1)"}`} {
		if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/users/profile", bad); rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Errorf("%s: %d %s", bad, rec.Code, rec.Body)
		}
	}
}
