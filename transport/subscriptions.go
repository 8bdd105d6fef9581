package transport

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// SubscriptionLists reads the subscriptions read model for the customer and merchant lists: a
// page, oldest first, and the cursor of the next ("" after the last; readmodels.ErrBadCursor).
type SubscriptionLists interface {
	CustomerPage(ctx context.Context, wallet string, limit int, cursor string) ([]subscription.State, string, error)
	MerchantPage(ctx context.Context, wallet string, limit int, cursor string) ([]subscription.State, string, error)
	// ChargeTotals sums a merchant's subscription charges (their billing records) in [from, to).
	ChargeTotals(ctx context.Context, wallet string, from, to time.Time) (readmodels.ChargeTotals, error)
}

var _ SubscriptionLists = (*readmodels.Subscriptions)(nil)

func (s *Server) subscriptionRoutes(charger *settlement.ChargeSubscriptionsHandler) {
	s.handle(http.MethodPost, "/api/subscriptions/create", Policy{Access: Public}, s.postSubscription)
	s.handle(http.MethodGet, "/api/subscriptions/status", Policy{Access: Public}, s.subscriptionStatus)
	s.handle(http.MethodPost, "/api/subscriptions/cancel", Policy{Access: Admin}, s.postCancelSubscription)
	s.subscriptionChargeRoutes(charger)
}

// waitListed waits (bounded, as orders wait for the receipts projection) until the
// subscriptions projection holds an append, so that the caller's next customer or merchant status
// list shows it (DESIGN 9, read-your-writes).
func (s *Server) waitListed(ctx context.Context, pos commands.Position) error {
	ctx, cancel := context.WithTimeout(ctx, readWait)
	defer cancel()
	return s.subscriptionsView.WaitFor(ctx, pos)
}

// viewSubscription is a subscription at now as the status read answers it (DESIGN 8).
func viewSubscription(st subscription.State, now time.Time) map[string]any {
	var last any
	if st.LastChargeAt != 0 {
		last = st.LastChargeAt
	}
	return map[string]any{"subscriptionId": st.ID, "planId": st.PlanID, "status": string(st.StatusAt(now)),
		"customerWallet": st.Customer, "merchantWallet": st.Merchant, "priceUsd": float64(st.Plan.PriceUSD) / 100,
		"period": string(st.Plan.Period), "nextChargeAt": st.NextChargeAt, "lastChargeAt": last, "charges": st.Charges}
}

type createSubscriptionBody struct {
	PlanID              string                   `json:"planId"`
	CustomerWallet      string                   `json:"customerWallet"`
	PermissionSignature string                   `json:"permissionSignature"`
	PermissionData      *subscription.Permission `json:"permissionData"`
}

func (s *Server) postSubscription(c echo.Context) error {
	if err := s.limitCreations(c); err != nil {
		return err
	}
	var b createSubscriptionBody
	if err := DecodeJSON(c, &b); err != nil {
		return err
	}
	switch {
	case b.PlanID == "":
		return InvalidInput("planId is required")
	case !ValidWallet(b.CustomerWallet):
		return InvalidInput("customerWallet must be a 0x-prefixed 40-hex-character address")
	case b.PermissionSignature == "":
		return InvalidInput("permissionSignature is required")
	case b.PermissionData == nil:
		return InvalidInput("permissionData is required")
	}
	res, err := s.cmd.CreateSubscription.Handle(c.Request().Context(), commands.CreateSubscription{PlanID: b.PlanID,
		Customer: b.CustomerWallet, Permission: *b.PermissionData, Signature: b.PermissionSignature,
		Meta: s.metadata(c, strings.ToLower(b.CustomerWallet))})
	if err != nil {
		return err
	}
	if err := s.waitListed(c.Request().Context(), res.Position); err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"success": true, "subscription": map[string]any{
		"subscriptionId": res.State.ID, "status": string(res.State.Status), "nextChargeAt": res.State.NextChargeAt}})
}

// subscriptionStatus answers exactly one selector: subscriptionId (public; read from the
// subscription's stream, so a status right after create is never stale), customer (a session of
// that wallet) or merchant (a session of that wallet or a key of it; from the read model, a page of limit (1 to 1000, default 1000)
// after cursor, with next: the cursor of the following page, null after the last).
func (s *Server) subscriptionStatus(c echo.Context) error {
	q := c.QueryParams()
	var selectors []string
	for _, k := range []string{"subscriptionId", "customer", "merchant"} {
		if _, ok := q[k]; ok {
			selectors = append(selectors, k)
		}
	}
	if len(selectors) != 1 {
		return InvalidInput("exactly one of subscriptionId, customer or merchant is required")
	}
	ctx := c.Request().Context()
	value := q.Get(selectors[0])
	if selectors[0] == "subscriptionId" {
		st, err := s.aggregates.Subscription(ctx, value)
		if err != nil {
			return err
		}
		if value == "" || !st.Exists {
			return subscription.ErrNotFound
		}
		return c.JSON(http.StatusOK, map[string]any{"success": true, "subscription": viewSubscription(st, s.now())})
	}
	if !ValidWallet(value) {
		return InvalidInput(selectors[0] + " must be a 0x-prefixed 40-hex-character address")
	}
	if selectors[0] == "merchant" && s.presentsKey(c.Request()) {
		// A merchant's own key reads its list as its session does (spec, Authentication point 1);
		// the key decides over a kept cookie, as on the key-or-session routes.
		return s.developer("")(func(c echo.Context) error {
			if p, _ := PrincipalFrom(c); !strings.EqualFold(p.Wallet, value) {
				return NewError(http.StatusForbidden, "forbidden", "The key's wallet is not merchant "+value)
			}
			return s.subscriptionList(c, selectors[0], value)
		})(c)
	}
	sess, _, err := s.parseSession(c)
	if err != nil {
		return err
	}
	if !strings.EqualFold(sess.Wallet, value) {
		return NewError(http.StatusForbidden, "forbidden", "The signed-in wallet is not "+selectors[0]+" "+value)
	}
	return s.subscriptionList(c, selectors[0], value)
}

// subscriptionList answers a customer's or merchant's page of subscriptions, once the caller is
// known to be that wallet.
func (s *Server) subscriptionList(c echo.Context, selector, value string) error {
	ctx := c.Request().Context()
	limit, err := intParam(c, "limit", readmodels.SubscriptionListMax, 1, readmodels.SubscriptionListMax)
	if err != nil {
		return err
	}
	page := s.subscriptionLists.CustomerPage
	if selector == "merchant" {
		page = s.subscriptionLists.MerchantPage
	}
	subs, next, err := page(ctx, value, limit, c.QueryParam("cursor"))
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(subs))
	for i, st := range subs {
		out[i] = viewSubscription(st, s.now())
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "subscriptions": out, "next": nullable(next)})
}

func (s *Server) postCancelSubscription(c echo.Context) error {
	var b struct {
		SubscriptionID string `json:"subscriptionId"`
		Wallet         string `json:"wallet"`
	}
	if err := DecodeJSON(c, &b); err != nil {
		return err
	}
	if b.SubscriptionID == "" {
		return InvalidInput("subscriptionId is required")
	}
	sess, _ := SessionFrom(c)
	if b.Wallet != "" && !strings.EqualFold(b.Wallet, sess.Wallet) {
		return NewError(http.StatusForbidden, "forbidden", "wallet is not the signed-in wallet")
	}
	res, err := s.cmd.CancelSubscription.Handle(c.Request().Context(), commands.CancelSubscription{ID: b.SubscriptionID,
		By: sess.Wallet, Meta: s.metadata(c, sess.Wallet)})
	if err != nil {
		return err
	}
	if err := s.waitListed(c.Request().Context(), res.Position); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "subscription": viewSubscription(res.State, s.now())})
}
