package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDashboardSearchCutsOnCharacters: the search is cut at 200 characters (the input's
// maxlength), never inside one. Cut at byte 200, "é" straddling it left invalid UTF-8, which
// PostgreSQL refused: a 500 page.
func TestDashboardSearchCutsOnCharacters(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	rec := e.Dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4,"transactionId":"`+strings.Repeat("é", 90)+`"}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	for _, tc := range []struct {
		name, q string
		found   bool
	}{
		{"a character across byte 200", strings.Repeat("a", 199) + "é", false},
		{"200 two-byte characters", strings.Repeat("é", 200), false},
		{"the transactionId", strings.Repeat("é", 90), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, page, _ := e.Get("/dashboard?q="+url.QueryEscape(tc.q), m.Cookies)
			if code != http.StatusOK || strings.Contains(page, `<tr data-id="`) != tc.found {
				t.Fatalf("%d, rows %v:\n%s", code, strings.Contains(page, `<tr data-id="`), page[:min(len(page), 500)])
			}
		})
	}
	// The value shown back is the search as run: 200 characters.
	_, page, _ := e.Get("/dashboard?q="+url.QueryEscape(strings.Repeat("é", 250)), m.Cookies)
	if !strings.Contains(page, `value="`+strings.Repeat("é", 200)+`"`) {
		t.Fatalf("the search field does not hold 200 characters:\n%s", page[:min(len(page), 2000)])
	}
}
