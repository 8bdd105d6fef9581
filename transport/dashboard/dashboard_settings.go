package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
)

const dashSubscriptionsMax = 50 // subscriptions the settings page lists

type dashRecipient struct{ Address, Share string }

type dashKey struct {
	ID, Name, Prefix, Scopes, Created string
	Revoked                           bool
}

type dashPlan struct{ Name, Price, Period string }

type dashSubscription struct {
	ID, Plan, Customer, Status, Next string
	Charges                          int64
}

type dashBilling struct {
	Currency, Volume, Fees, Refunds string
	Count                           int64
}

type dashSettingsView struct {
	Wallet string
	Split  struct {
		Address    string
		Recipients []dashRecipient
	}
	Keys          []dashKey
	Scopes        []string
	Plans         []dashPlan
	Subscriptions []dashSubscription
	Billing       []dashBilling
	Endpoints     dashEndpointsView
	Shop          struct{ Name, Primary, Accent, Logo string }
}

// dashSettings is /dashboard/settings: split, API keys, webhook endpoints, plans and
// subscriptions, billing balance, shop branding. Its forms post to the admin API.
func (s *dash) dashSettings(c echo.Context, sess transport.Session, f Frame) error {
	ctx := c.Request().Context()
	v := dashSettingsView{Wallet: sess.Wallet, Scopes: transport.Scopes}
	sp, err := s.Splits.Split(ctx, sess.Wallet)
	if err != nil {
		return err
	}
	if sp.Configured {
		v.Split.Address = sp.Address
		for _, r := range sp.Recipients {
			v.Split.Recipients = append(v.Split.Recipients, dashRecipient{Address: r.Address, Share: fmt.Sprintf("%d.%02d %%", r.SharesBps/100, r.SharesBps%100)})
		}
	}
	keys, err := s.Keys.List(ctx, sess.Wallet)
	if err != nil {
		return err
	}
	for _, k := range keys {
		created, _ := dashTime(k.CreatedAt.UnixMilli())
		v.Keys = append(v.Keys, dashKey{ID: k.ID.String(), Name: k.Name, Prefix: k.Prefix, Scopes: strings.Join(k.Scopes, ", "), Created: created, Revoked: k.RevokedAt != nil})
	}
	if v.Endpoints, err = s.dashEndpoints(ctx, sess.Wallet); err != nil {
		return err
	}
	if err := s.dashPlans(c, sess.Wallet, &v); err != nil {
		return err
	}
	sums, err := s.Figures.Summaries(ctx, sess.Wallet, time.Unix(0, 0), s.now().Add(time.Millisecond))
	if err != nil {
		return err
	}
	for _, m := range sums {
		v.Billing = append(v.Billing, dashBilling{Currency: m.Currency, Count: m.PaidCount, Volume: dashMoney(money.Cents(m.PaidCents), m.Currency),
			Fees: dashMoney(money.Cents(m.PlatformCents), m.Currency), Refunds: dashMoney(money.Cents(m.RefundedCents), m.Currency)})
	}
	shop, err := s.Shops.Get(ctx, sess.Wallet)
	if err != nil && !errors.Is(err, readmodels.ErrNotFound) {
		return err
	}
	// The colour inputs need a colour: the payment page's defaults when the shop has none.
	v.Shop.Name, v.Shop.Primary, v.Shop.Accent, v.Shop.Logo = shop.Name, colorInput(shop.Theme.PrimaryColor, "#1d4ed8"),
		colorInput(shop.Theme.AccentColor, "#047857"), shop.Theme.BrandLogoURL
	f.Title, f.Tab = "Settings", "settings"
	return s.ui.Render(c.Response(), http.StatusOK, "settings", f, v)
}

// colorInput is a shop colour as an <input type="color"> takes it: #rrggbb, def when the shop has
// none. The API also stores #RGB, which such an input does not take: the browser replaced it with
// #000000, so saving the branding form (to change only the name) turned the shop's colour black.
func colorInput(c, def string) string {
	c = transport.Color(strings.TrimSpace(c))
	if c == "" {
		return def
	}
	if len(c) == 4 { // #RGB
		c = string([]byte{'#', c[1], c[1], c[2], c[2], c[3], c[3]})
	}
	return strings.ToLower(c)
}

// dashPlans fills the merchant's active plans and its newest subscriptions, newest first.
func (s *dash) dashPlans(c echo.Context, wallet string, v *dashSettingsView) error {
	ctx := c.Request().Context()
	plans, err := s.Plans.ListActive(ctx, wallet)
	if err != nil {
		return err
	}
	for _, p := range plans {
		v.Plans = append(v.Plans, dashPlan{Name: p.Name, Price: dashMoney(p.Price, "USD"), Period: p.Period})
	}
	subs, err := s.Subscriptions.NewestByMerchant(ctx, wallet, dashSubscriptionsMax)
	if err != nil {
		return err
	}
	now := s.now()
	for _, st := range subs {
		v.Subscriptions = append(v.Subscriptions, dashSubscription{ID: st.ID, Plan: st.Plan.Name, Customer: st.Customer, Status: string(st.StatusAt(now)),
			Next: dashNextCharge(st, now), Charges: st.Charges})
	}
	return nil
}

// dashNextCharge is the settings page's "Next charge" of a subscription: its nextChargeAt only
// when the charging run will charge it then (subscription.Due), else "none": a cancelled or
// ended one (its permission over or revoked) is never charged again, and neither is one whose
// next period begins at or after its permission's end. The stored nextChargeAt read as a charge
// to come on that day.
func dashNextCharge(st subscription.State, now time.Time) string {
	switch st.StatusAt(now) {
	case subscription.StatusCancelled, subscription.StatusEnded:
		return "none"
	}
	if st.Permission.End > 0 && st.NextChargeAt >= st.Permission.End*1000 {
		return "none"
	}
	next, _ := dashTime(st.NextChargeAt)
	return next
}
