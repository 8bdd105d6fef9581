package subscription

import (
	"encoding/json"
	"fmt"
)

// Event type names (all version 1, documented in docs/events/subscription.md).
const (
	EventCreated      = "SubscriptionCreated"
	EventCharged      = "SubscriptionCharged"
	EventChargeFailed = "SubscriptionChargeFailed"
	EventPastDue      = "SubscriptionPastDue"
	EventCancelled    = "SubscriptionCancelled"
	// EventPermissionRevoked: the chain refused a charge because the customer revoked the spend
	// permission; the subscription has ended.
	EventPermissionRevoked = "SubscriptionPermissionRevoked"
)

// Webhook event types of a charge's outcome (docs/webhooks.md): what the merchant's endpoints
// receive, named here once for the process that queues them (settlement) and the payload
// catalog that lists them (readmodels).
const (
	WebhookCharged      = "subscription.charged"
	WebhookChargeFailed = "subscription.charge_failed"
)

// Created records a new subscription with the plan and permission it was accepted with. The
// signature is kept because the first charge submits it (approveWithSignature); it only lets the
// operator spend within the permission, so it is not a secret.
type Created struct {
	SubscriptionID string     `json:"subscriptionId"`
	PlanID         string     `json:"planId"`
	Merchant       string     `json:"merchantWallet"`
	Customer       string     `json:"customerWallet"`
	Plan           Plan       `json:"plan"`
	Permission     Permission `json:"permission"`
	Signature      string     `json:"permissionSignature"` // 0x hex
	PriceUnits     string     `json:"priceUnits"`          // plan price in USDC base units
	CreatedAt      int64      `json:"createdAt"`           // Unix ms
	NextChargeAt   int64      `json:"nextChargeAt"`        // Unix ms, = createdAt
}

// Charged records a successful charge of one period.
type Charged struct {
	PeriodIndex       int64    `json:"periodIndex"`
	AmountUnits       string   `json:"amountUnits"`       // USDC base units spent
	TransactionHashes []string `json:"transactionHashes"` // lower-case, in the order sent
	ChargedAt         int64    `json:"chargedAt"`         // Unix ms
	NextChargeAt      int64    `json:"nextChargeAt"`      // Unix ms, the previous one + one period
}

// ChargeFailed records a failed charge of the next period; nextChargeAt does not move.
type ChargeFailed struct {
	PeriodIndex int64  `json:"periodIndex"`
	Reason      string `json:"reason"`
	Attempt     int    `json:"attempt"`  // 1-based count of consecutive failures for this period
	FailedAt    int64  `json:"failedAt"` // Unix ms
}

// PastDue records that the subscription became past_due; it is decided together with the
// PastDueAfter-th consecutive failure.
type PastDue struct {
	PeriodIndex int64 `json:"periodIndex"`
	At          int64 `json:"at"` // Unix ms
}

// Cancelled records the customer's cancellation; nothing is charged after it.
type Cancelled struct {
	By string `json:"by"` // the customer wallet, lower-case
	At int64  `json:"at"` // Unix ms
}

// PermissionRevoked records that the chain refused the charge of period PeriodIndex because the
// customer revoked the spend permission on the manager: a revoked permission can never be
// approved or spent again, so the subscription has ended (status ended) and nothing more is
// tried. It is decided together with that charge's ChargeFailed.
type PermissionRevoked struct {
	PeriodIndex int64 `json:"periodIndex"`
	At          int64 `json:"at"` // Unix ms
}

// Event is a decoded subscription event.
type Event interface{ eventType() string }

func (Created) eventType() string           { return EventCreated }
func (Charged) eventType() string           { return EventCharged }
func (ChargeFailed) eventType() string      { return EventChargeFailed }
func (PastDue) eventType() string           { return EventPastDue }
func (Cancelled) eventType() string         { return EventCancelled }
func (PermissionRevoked) eventType() string { return EventPermissionRevoked }

// TypeOf returns an event's type name.
func TypeOf(e Event) string { return e.eventType() }

// Decode turns a stored event into its domain type. Errors: ErrUnknownEvent for an unknown type,
// a wrapped JSON error for malformed data.
func Decode(typ string, data []byte) (Event, error) {
	switch typ {
	case EventCreated:
		return decode[Created](typ, data)
	case EventCharged:
		return decode[Charged](typ, data)
	case EventChargeFailed:
		return decode[ChargeFailed](typ, data)
	case EventPastDue:
		return decode[PastDue](typ, data)
	case EventCancelled:
		return decode[Cancelled](typ, data)
	case EventPermissionRevoked:
		return decode[PermissionRevoked](typ, data)
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownEvent, typ)
}

// decode returns the value, not a pointer, so that Evolve's type switch sees what deciders made.
func decode[E Event](typ string, data []byte) (Event, error) {
	var e E
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("decode %s: %w", typ, err)
	}
	return e, nil
}
