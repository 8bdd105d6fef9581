package transport

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestCatalogInventorySearchIsBounded: GET /api/inventory's q is matched (ILIKE) against every
// item's name and SKU; PostgreSQL lowers the pattern for every row it compares, so a q of 100 KB
// held the database for 20 s over 5,000 items (and a URL may carry about 1 MB, a catalog 100,000
// items). A q longer than any name (200 characters) matches nothing: it is 400 invalid_input; a
// q of 200 characters still searches.
func TestCatalogInventorySearchIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	name := strings.Repeat("é", 200)
	e.item(m, `{"sku":"long","name":"`+name+`","priceUsd":1}`)
	rec := e.dev(m, http.MethodGet, "/api/inventory?q="+url.QueryEscape(strings.Repeat("é", 201)), "")
	if env := decode(t, rec); rec.Code != http.StatusBadRequest || env["error"] != "invalid_input" ||
		env["message"] != "q must be at most 200 characters" {
		t.Fatalf("a q of 201 characters: %d %v", rec.Code, env)
	}
	rec = e.dev(m, http.MethodGet, "/api/inventory?q="+url.QueryEscape(name), "")
	if items, _ := decode(t, rec)["items"].([]any); rec.Code != http.StatusOK || len(items) != 1 {
		t.Fatalf("a q of 200 characters: %d %s", rec.Code, rec.Body)
	}
}
