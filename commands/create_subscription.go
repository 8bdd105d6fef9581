package commands

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

// SubscriptionPlan is what creating a subscription needs of a plan.
type SubscriptionPlan struct {
	ID       string
	Merchant string
	Name     string
	Price    money.Cents
	Period   string
	Active   bool
}

// SubscriptionPlans finds plans; found is false for an unknown id.
type SubscriptionPlans interface {
	SubscriptionPlan(ctx context.Context, id string) (plan SubscriptionPlan, found bool, err error)
}

// PermissionSigner recovers the wallet that signed a spend permission (EIP-712) and names the
// permission as the manager does (its hash); it refuses a signature the manager would refuse.
type PermissionSigner interface {
	Verify(p subscription.Permission, signature string) (subscription.Signed, error)
}

// CreateSubscription is a customer's request to subscribe to a plan with a signed permission.
type CreateSubscription struct {
	PlanID     string
	Customer   string
	Permission subscription.Permission
	Signature  string
	Meta       eventstore.Metadata
}

// SubscriptionResult is a subscription after a command and the log position of its events.
type SubscriptionResult struct {
	State    subscription.State
	Position eventstore.Position
}

// ErrSubscriptionsNotSetUp refuses subscription commands without a chain configuration.
var ErrSubscriptionsNotSetUp = &Refusal{Kind: KindUnavailable, Code: "subscriptions_not_configured",
	Message: "Subscriptions need CHAIN_OPERATOR_KEY, SPEND_PERMISSION_MANAGER and a USDC token in CHAIN_TOKENS"}

// CreateSubscriptionHandler creates subscriptions.
type CreateSubscriptionHandler struct {
	store   Store
	plans   SubscriptionPlans
	signer  PermissionSigner // nil: not configured
	spender string           // the operator account
	usdc    string
	now     func() time.Time

	// Funds and Live, when set, bound creations (create_subscription_bounds.go): the permission
	// must be chargeable its first period now, and a wallet holds MaxLiveSubscriptionsPerPlan
	// live subscriptions to a plan at most.
	Funds SpendFunds
	Live  LiveSubscriptions
	// Uncharged, when set, bounds a merchant's new subscriptions not charged yet
	// (MaxUnchargedSubscriptionsPerHour, create_subscription_uncharged.go).
	Uncharged UnchargedSubscriptions
}

// NewCreateSubscriptionHandler returns the handler. signer may be nil (no chain configured:
// every creation is ErrSubscriptionsNotSetUp); it panics on another nil dependency.
func NewCreateSubscriptionHandler(store Store, plans SubscriptionPlans, signer PermissionSigner, spender, usdc string, now func() time.Time) *CreateSubscriptionHandler {
	if store == nil || plans == nil || now == nil {
		panic("commands.NewCreateSubscriptionHandler: nil dependency")
	}
	return &CreateSubscriptionHandler{store: store, plans: plans, signer: signer, spender: spender, usdc: usdc, now: now}
}

// maxPlanIDChars bounds a planId before it is looked up or named in an error: plan ids are
// "plan_" and a UUID (41 characters); the bound leaves room without echoing a request's body.
const maxPlanIDChars = 100

// Handle checks the plan and the signature, then decides the creation (DESIGN 8). Errors:
// ErrSubscriptionsNotSetUp, Invalid naming the reason (unknown plan, malformed input, a
// signature by another wallet or one the manager would refuse, and every refusal of
// subscription.DecideCreate), a conflict when the same permission (the manager's hash, whatever
// the plan and however its values are spelled) already backs a subscription, ErrContended,
// wrapped store errors; with the bounds set (checkBounds): Invalid for a permission that cannot be
// charged its first period now, a conflict past MaxLiveSubscriptionsPerPlan, 503
// chain_unavailable when the chain does not answer.
func (h *CreateSubscriptionHandler) Handle(ctx context.Context, cmd CreateSubscription) (SubscriptionResult, error) {
	if h.signer == nil || h.spender == "" || h.usdc == "" {
		return SubscriptionResult{}, ErrSubscriptionsNotSetUp
	}
	if strings.TrimSpace(cmd.PlanID) == "" {
		return SubscriptionResult{}, Invalid("planId is required")
	}
	if len(cmd.PlanID) > maxPlanIDChars { // the error names it: not a megabyte of it
		return SubscriptionResult{}, Invalidf("unknown plan: planId is longer than any plan's (%d characters at most)", maxPlanIDChars)
	}
	plan, found, err := h.plans.SubscriptionPlan(ctx, cmd.PlanID)
	if err != nil {
		return SubscriptionResult{}, err
	}
	if !found {
		return SubscriptionResult{}, Invalidf("unknown plan: %s", cmd.PlanID)
	}
	signed, err := h.signer.Verify(cmd.Permission, cmd.Signature)
	if err != nil {
		return SubscriptionResult{}, Invalidf("%v", err) // names permissionData's field or permissionSignature
	}
	if !subscription.SameAddress(signed.Signer, cmd.Customer) {
		return SubscriptionResult{}, Invalidf("the permission is signed by %s, not by customerWallet %s", signed.Signer, cmd.Customer)
	}
	c := subscription.Create{ID: subscriptionID(signed.Hash), PlanID: plan.ID, PlanActive: plan.Active, Merchant: plan.Merchant,
		Customer: cmd.Customer, Permission: cmd.Permission, Signature: signed.Signature, Spender: h.spender, Token: h.usdc,
		Plan: subscription.Plan{Name: plan.Name, PriceUSD: plan.Price, Period: subscription.Period(plan.Period)}}
	if err := h.checkBounds(ctx, c); err != nil {
		return SubscriptionResult{}, err
	}
	return ChangeSubscription(ctx, h.store, c.ID, cmd.Meta, func(s subscription.State) ([]subscription.Event, error) {
		evs, err := subscription.DecideCreate(s, c, h.now())
		if errors.Is(err, subscription.ErrExists) {
			return nil, &Refusal{Kind: KindConflict, Code: "conflict", Message: "This spend permission already backs subscription " + c.ID}
		}
		return evs, err
	})
}

// subscriptionID is derived from the manager's hash of the permission alone (not the plan, not
// the spelling of its values): the manager keys its approval and its allowance per period on that
// hash, so two subscriptions on one permission would share one allowance. One permission
// therefore backs at most one subscription: its second creation finds the stream (409).
func subscriptionID(permissionHash string) string {
	sum := sha256.Sum256([]byte("spend-permission|" + strings.ToLower(permissionHash)))
	return "sub_" + hex.EncodeToString(sum[:16])
}
