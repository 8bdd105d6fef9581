package dashboard_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/payledger/payledger/domain/subscription"
)

// TestSettingsShowNoNextChargeForASubscriptionNeverChargedAgain: the settings page's "Next
// charge" column showed the stored nextChargeAt of every subscription, so a cancelled one, one
// whose spend permission had ended, and one whose next period begins after its permission ends
// each read as charged on that day, which the charging run never does (subscription.Due).
func TestSettingsShowNoNextChargeForASubscriptionNeverChargedAgain(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	now := e.Clk.Now().Unix()
	next := (now + 86_400) * 1000 // tomorrow
	for i, c := range []struct {
		id     string
		status subscription.Status
		end    int64 // the permission's end, Unix s
	}{
		{"sub_due", subscription.StatusActive, now + 30*86_400},
		{"sub_past_due", subscription.StatusPastDue, now + 30*86_400},
		{"sub_cancelled", subscription.StatusCancelled, now + 30*86_400},
		{"sub_permission_ended", subscription.StatusActive, now - 60},
		{"sub_last_period_done", subscription.StatusActive, now + 3600}, // ends before the next charge
		{"sub_revoked", subscription.StatusEnded, now + 30*86_400},
	} {
		st := subscription.State{Exists: true, ID: c.id, PlanID: "plan_1", Merchant: m.Wallet, Customer: "0x00000000000000000000000000000000000000c1",
			Status: c.status, CreatedAt: int64(1_700_000_000_000 + i*1000), NextChargeAt: next, Charges: 1, Version: 2,
			Permission: subscription.Permission{Start: now - 86_400, End: c.end, Period: 86_400}}
		raw, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Pool.Exec(context.Background(), `INSERT INTO subscriptions
			(subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
			VALUES ($1, $2, lower($3), $4, $5, $6, $7, 2, $8)`, st.ID, st.PlanID, st.Merchant, st.Customer, st.Status,
			st.NextChargeAt, st.CreatedAt, raw); err != nil {
			t.Fatal(err)
		}
	}
	code, page, _ := e.Get("/dashboard/settings", m.Cookies)
	rows := regexp.MustCompile(`<tr><td><code>(sub_[a-z_]+)</code>.*?<td>([^<]*)</td></tr>`).FindAllStringSubmatch(page, -1)
	if code != 200 || len(rows) != 6 {
		t.Fatalf("%d, %d subscription rows\n%s", code, len(rows), page)
	}
	want := map[string]bool{"sub_due": true, "sub_past_due": true} // charged on the day shown
	for _, r := range rows {
		shown := r[2] != "none"
		if shown != want[r[1]] {
			t.Errorf("%s: next charge %q, want a date only when a charge will happen", r[1], r[2])
		}
		if shown && !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$`).MatchString(r[2]) {
			t.Errorf("%s: next charge %q is not a date", r[1], r[2])
		}
	}
}
