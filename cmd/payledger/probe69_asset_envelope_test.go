package main

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestAMissingAssetAnswersTheEnvelope: a request under the asset prefixes for a hash or file the
// instance does not serve (a page rendered by another version of the service during a rolling
// deploy asks for its own hash; a mistyped or probed path) is an unknown route: 404 with the
// README's envelope {"error":"not_found","message":...}, as every other error. Both asset handlers
// answered net/http's text/plain "404 page not found".
func TestAMissingAssetAnswersTheEnvelope(t *testing.T) {
	t.Parallel()
	base, _ := startServe(t, map[string]string{"DEVCHAIN": "off"})
	for _, path := range []string{
		"/_next/static/0000000000000000/app.js", "/_next/static/nohash", "/_next/static/",
		"/dashboard/static/0000000000000000/dash.js", "/dashboard/static/nohash", "/dashboard/static/",
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var env struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		if resp.StatusCode != http.StatusNotFound || json.Unmarshal(raw, &env) != nil || env.Error != "not_found" || env.Message == "" {
			t.Errorf("GET %s: %d %q (%s); want 404 with the error envelope, not_found", path, resp.StatusCode, raw, resp.Header.Get("Content-Type"))
		}
	}
}
