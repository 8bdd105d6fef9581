package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/readmodels"
)

// PlanStore keeps subscription plans (CRUD, DESIGN 8).
type PlanStore interface {
	Create(ctx context.Context, p readmodels.Plan, now time.Time) (readmodels.Plan, error)
	Get(ctx context.Context, id string) (readmodels.Plan, error)
	Update(ctx context.Context, id, wallet string, patch readmodels.PlanPatch, now time.Time) (readmodels.Plan, error)
	ListActive(ctx context.Context, wallet string) ([]readmodels.Plan, error)
}

var _ PlanStore = (*readmodels.Plans)(nil)

// errNotPlanOwner answers a plan write whose body names a wallet other than the session's (on
// create no plan exists yet: "does not own this plan" misled).
var errNotPlanOwner = NewError(http.StatusForbidden, "forbidden", "wallet is not the signed-in wallet: plans are written by their merchant's session")

// errPlanNotFound answers a plan write whose planId names no plan (it read "Not found").
var errPlanNotFound = NewError(http.StatusNotFound, "not_found", "Plan not found")

// PlanCreatesPerHour is how many plans a merchant wallet may create an hour (a burst of as many,
// then one every 36 s). MaxPlans bounds the active plans only: create, deactivate, create again
// added a row each time, without end, at the per-wallet limit (600 a minute). Inactive plans are
// kept, as subscriptions made from them are charged at their price; a merchant replaces a plan by
// changing it (PUT) or deactivating it and creating another, which this leaves ample room for.
const PlanCreatesPerHour = 100

func (s *Server) planRoutes() {
	s.handle(http.MethodGet, "/api/subscriptions/plans", Policy{Access: Public}, s.listPlans)
	s.handle(http.MethodPost, "/api/subscriptions/plans", Policy{Access: Admin}, s.createPlan)
	s.handle(http.MethodPut, "/api/subscriptions/plans", Policy{Access: Admin}, s.updatePlan)
	s.handle(http.MethodDelete, "/api/subscriptions/plans", Policy{Access: Admin}, s.deactivatePlan)
}

// viewPlan is the spec's Plan, with the extraData a customer's spend permission must carry to
// subscribe to it (subscription.PlanBinding), so a client signs it without computing it.
func viewPlan(p readmodels.Plan) map[string]any {
	return map[string]any{"planId": p.ID, "name": p.Name, "description": p.Description,
		"priceUsd": float64(p.Price) / 100, "period": p.Period, "active": p.Active, "createdAt": p.CreatedAt.UnixMilli(),
		"permissionExtraData": subscription.PlanBinding(p.ID)}
}

func (s *Server) listPlans(c echo.Context) error {
	wallet := c.QueryParam("wallet")
	if !ValidWallet(wallet) {
		return InvalidInput("wallet is required: a 0x-prefixed 40-hex-character address")
	}
	plans, err := s.plans.ListActive(c.Request().Context(), wallet)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(plans))
	for i, p := range plans {
		out[i] = viewPlan(p)
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "plans": out})
}

type planBody struct {
	PlanID      *string      `json:"planId"`
	Wallet      *string      `json:"wallet"`
	Name        *string      `json:"name"`
	Description *string      `json:"description"`
	PriceUSD    *json.Number `json:"priceUsd"`
	Period      *string      `json:"period"`
	Active      *bool        `json:"active"`
}

// patch checks the fields given; required names the fields that must be present.
func (b planBody) patch(required bool) (readmodels.PlanPatch, error) {
	var p readmodels.PlanPatch
	if required && (b.Name == nil || b.PriceUSD == nil || b.Period == nil) {
		return p, InvalidInput("name, priceUsd and period are required")
	}
	// The plan rules are the domain's (domain/subscription/plan.go): a broken one is
	// subscription.ErrInvalid, which errors.go answers 400 invalid_input with the rule's text.
	if b.Name != nil {
		n, err := subscription.PlanName(*b.Name)
		if err != nil {
			return p, err
		}
		p.Name = &n
	}
	if b.Description != nil {
		if err := subscription.PlanDescription(*b.Description); err != nil {
			return p, err
		}
		p.Description = b.Description
	}
	if b.PriceUSD != nil {
		cents, err := subscription.PlanPrice(b.PriceUSD.String())
		if err != nil {
			return p, err
		}
		p.Price = &cents
	}
	if b.Period != nil {
		if err := subscription.PlanPeriod(*b.Period); err != nil {
			return p, err
		}
		p.Period = b.Period
	}
	p.Active = b.Active
	return p, nil
}

// ownWallet checks that the body's wallet, when given (or required), is the session's.
func ownWallet(c echo.Context, wallet *string, required bool) (string, error) {
	sess, _ := SessionFrom(c)
	if wallet == nil {
		if required {
			return "", InvalidInput("wallet is required")
		}
		return strings.ToLower(sess.Wallet), nil
	}
	if !ValidWallet(*wallet) {
		return "", InvalidInput("wallet must be a 0x-prefixed 40-hex-character address")
	}
	if !strings.EqualFold(*wallet, sess.Wallet) {
		return "", errNotPlanOwner
	}
	return strings.ToLower(sess.Wallet), nil
}

// planError answers a plan write's error: the bound on a merchant's active plans is the
// caller's (400 naming it), an unknown plan is named; every other error is errors.go's.
func planError(err error) error {
	if kept := (*readmodels.KeptPlansError)(nil); errors.As(err, &kept) {
		return InvalidInput(keptPlansMessage(kept.Reusable))
	}
	if errors.Is(err, readmodels.ErrTooManyPlans) {
		return InvalidInput(fmt.Sprintf("a merchant has at most %d active plans; deactivate or change one (PUT)", readmodels.MaxPlans))
	}
	if errors.Is(err, readmodels.ErrNotFound) {
		return errPlanNotFound
	}
	return err
}

// keptPlansMessage tells a merchant at readmodels.MaxKeptPlans what to do: no route deletes a
// plan (subscriptions made from it are charged at its price), so it changes one it has, naming
// the inactive plan no subscription was made from that it may reuse (the plan list shows active
// plans only, so the merchant may not know its inactive ones' ids).
func keptPlansMessage(reusable string) string {
	msg := fmt.Sprintf("a merchant keeps at most %d plans, active and inactive, and plans are never deleted: "+
		"instead of creating one, change a plan you have (PUT /api/subscriptions/plans with its planId and the new "+
		"name, priceUsd and period; an inactive one is reactivated with active: true)", readmodels.MaxKeptPlans)
	if reusable != "" {
		msg += fmt.Sprintf(", for example the inactive plan %s, which no subscription was made from", reusable)
	}
	return msg
}

func (s *Server) createPlan(c echo.Context) error {
	var b planBody
	if err := DecodeJSON(c, &b); err != nil {
		return err
	}
	if b.PlanID != nil || b.Active != nil {
		return InvalidInput("planId and active are not accepted on create")
	}
	patch, err := b.patch(true)
	if err != nil {
		return err
	}
	wallet, err := ownWallet(c, b.Wallet, true)
	if err != nil {
		return err
	}
	// Counted once the body is valid and the wallet the session's: bad input costs nothing.
	if err := s.limitEvery(c, "plancreate", "plancreate:"+wallet, PlanCreatesPerHour, time.Hour); err != nil {
		return err
	}
	desc := ""
	if patch.Description != nil {
		desc = *patch.Description
	}
	p, err := s.plans.Create(c.Request().Context(), readmodels.Plan{ID: "plan_" + newID(), Wallet: wallet,
		Name: *patch.Name, Description: desc, Price: *patch.Price, Period: *patch.Period}, s.now())
	if err != nil {
		return planError(err)
	}
	return c.JSON(http.StatusCreated, map[string]any{"success": true, "plan": viewPlan(p)})
}

func (s *Server) updatePlan(c echo.Context) error {
	var b planBody
	if err := DecodeJSON(c, &b); err != nil {
		return err
	}
	if b.PlanID == nil || strings.TrimSpace(*b.PlanID) == "" {
		return InvalidInput("planId is required")
	}
	patch, err := b.patch(false)
	if err != nil {
		return err
	}
	wallet, err := ownWallet(c, b.Wallet, false)
	if err != nil {
		return err
	}
	p, err := s.plans.Update(c.Request().Context(), *b.PlanID, wallet, patch, s.now())
	if err != nil {
		return planError(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "plan": viewPlan(p)})
}

func (s *Server) deactivatePlan(c echo.Context) error {
	var b struct {
		PlanID *string `json:"planId"`
		Wallet *string `json:"wallet"`
	}
	if err := DecodeJSON(c, &b); err != nil {
		return err
	}
	if b.PlanID == nil || strings.TrimSpace(*b.PlanID) == "" {
		return InvalidInput("planId is required")
	}
	wallet, err := ownWallet(c, b.Wallet, true)
	if err != nil {
		return err
	}
	inactive := false
	p, err := s.plans.Update(c.Request().Context(), *b.PlanID, wallet, readmodels.PlanPatch{Active: &inactive}, s.now())
	if err != nil {
		return planError(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "plan": viewPlan(p)})
}
