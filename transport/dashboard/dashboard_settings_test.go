package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/subscription"
)

// TestDashboardSettingsNewestSubscriptions: the settings page lists the merchant's 50 newest
// subscriptions, newest first. It listed the first 50 of the oldest-first list: the oldest.
func TestDashboardSettingsNewestSubscriptions(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	const n = 60
	for i := range n { // the read model's rows, as projections.Subscriptions writes them
		st := subscription.State{Exists: true, ID: fmt.Sprintf("sub_%02d", i), PlanID: "plan_1", Merchant: m.Wallet,
			Customer: "0x" + fmt.Sprintf("%040x", i+1), Status: "active", CreatedAt: int64(1_700_000_000_000 + i*1000),
			NextChargeAt: 1_800_000_000_000, Version: 1}
		raw, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Pool.Exec(context.Background(), `INSERT INTO subscriptions
			(subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
			VALUES ($1, $2, lower($3), $4, $5, $6, $7, 1, $8)`, st.ID, st.PlanID, st.Merchant, st.Customer, st.Status,
			st.NextChargeAt, st.CreatedAt, raw); err != nil {
			t.Fatal(err)
		}
	}
	code, page, _ := e.Get("/dashboard/settings", m.Cookies)
	ids := regexp.MustCompile(`<tr><td><code>(sub_\d+)</code>`).FindAllStringSubmatch(page, -1)
	if code != 200 || len(ids) != 50 {
		t.Fatalf("%d, %d subscriptions listed, want 50", code, len(ids))
	}
	for i, id := range ids {
		if want := fmt.Sprintf("sub_%02d", n-1-i); id[1] != want {
			t.Fatalf("row %d is %s, want %s (the newest first)", i, id[1], want)
		}
	}
}

// TestDashboardSettingsShortColours: a shop colour stored as #RGB (the API takes it) is shown in
// the branding form's colour inputs as #rrggbb. It was written as stored, which an
// <input type="color"> does not take: the browser showed and sent #000000, so saving the form to
// change only the shop's name turned its colours black.
func TestDashboardSettingsShortColours(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/shop/config", `{"theme":{"primaryColor":"#F00","accentColor":"#0a0"}}`); rec.Code != 200 {
		t.Fatalf("shop config: %d %s", rec.Code, rec.Body)
	}
	code, page, _ := e.Get("/dashboard/settings", m.Cookies)
	for _, want := range []string{`id="shop-primary" name="theme.primaryColor" type="color" value="#ff0000"`,
		`id="shop-accent" name="theme.accentColor" type="color" value="#00aa00"`} {
		if code != 200 || !strings.Contains(page, want) {
			t.Errorf("%d: want %s in\n%s", code, want, regexp.MustCompile(`(?s)<form id="shop".*?</form>`).FindString(page))
		}
	}
}
