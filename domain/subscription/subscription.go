// Package subscription is the subscription aggregate: a customer's signed spend permission,
// charged once per plan period by the service's operator account.
//
// Rules:
//   - A subscription is created once; creating an id that exists is ErrExists.
//   - Creation needs an active plan (ErrPlanInactive) with a positive price and a known period
//     (ErrInvalidPlan), a customer wallet that is the permission's account (ErrAccountMismatch),
//     the operator as spender (ErrWrongSpender) and USDC as token (ErrWrongToken), a permission
//     period equal to the plan period in seconds (ErrPeriodMismatch), an allowance that covers the
//     plan price in USDC base units (ErrAllowanceTooLow), now inside the permission's
//     [start, end) (ErrOutsideWindow), and an extraData that names the plan (PlanBinding; else
//     ErrNotBoundToPlan): what the customer signs says whose plan it pays, so nobody holding the
//     signature can put it on another merchant's plan of the same price and period. Each of these
//     errors matches ErrInvalid, so callers answer 400 invalid_input naming the reason. The
//     signature itself is recovered by the caller.
//   - The first charge is due at creation: nextChargeAt = createdAt.
//   - Periods are charged in order and each at most once: the next period index is the number of
//     successful charges. A charge or failure for an index already charged is ErrAlreadyCharged,
//     for any other index than the next one ErrWrongPeriod.
//   - A charge is sent only when Due says so: a subscription that is not cancelled, now >=
//     nextChargeAt and now inside the permission's [start, end). Recording it (DecideCharge)
//     checks only the period: money the chain moved is recorded even when a cancel or the
//     permission's end came while the spend was in flight. A charge moves nextChargeAt by exactly one period from where it was, not from now: a late charge does not
//     shift the schedule, so every scheduled charge stays in its own on-chain permission period.
//   - A failed charge never moves nextChargeAt; it counts the consecutive failures of the period.
//     The third one makes the subscription past_due (SubscriptionPastDue is decided with it). A
//     successful charge makes a past_due subscription active again and resets the count.
//   - A charge the chain refuses because the customer revoked the spend permission is a failed
//     charge that also ends the subscription (PermissionRevoked, status ended, stored): a revoked
//     permission can never be approved or spent again, so it is never due again and no further
//     failure is tried (before, it was retried every day for ever, a charge_failed each time).
//   - Only the subscribing customer cancels (ErrNotCustomer). Cancelled is final: nothing is
//     charged after it, and no failure or second cancel is recorded (ErrCancelled); a charge in
//     flight when it came is recorded, and the subscription stays cancelled.
//   - Wallets compare case-insensitively and are stored lower-case, as are transaction hashes.
//   - Evolve is the only place state changes, so replaying the events gives the live state.
package subscription

import (
	"errors"
	"time"

	"github.com/payledger/payledger/domain/money"
)

// StreamPrefix starts the name of every subscription stream.
const StreamPrefix = "subscription-"

// Stream is the event stream of subscription id.
func Stream(id string) string { return StreamPrefix + id }

// PastDueAfter is the number of consecutive failed charges that makes a subscription past_due.
const PastDueAfter = 3

// Status is a subscription's status.
type Status string

// Statuses.
const (
	StatusActive    Status = "active"
	StatusPastDue   Status = "past_due"
	StatusCancelled Status = "cancelled"
	// StatusEnded: a subscription that is not cancelled, whose permission has ended (read at
	// the time, StatusAt) or was revoked by the customer (stored: PermissionRevoked), is never
	// charged again.
	StatusEnded Status = "ended"
)

// Period is a plan's billing period, as the spec's enum spells it.
type Period string

// Periods.
const (
	Weekly    Period = "WEEKLY"
	Biweekly  Period = "BIWEEKLY"
	Monthly   Period = "MONTHLY"
	Quarterly Period = "QUARTERLY"
	Yearly    Period = "YEARLY"
)

const day = 24 * 60 * 60

// Seconds is the period's length, which a spend permission's period must equal (DESIGN.md 8:
// months are 30 days, years 365); ok is false for a period outside the enum.
func (p Period) Seconds() (seconds int64, ok bool) {
	switch p {
	case Weekly:
		return 7 * day, true
	case Biweekly:
		return 14 * day, true
	case Monthly:
		return 30 * day, true
	case Quarterly:
		return 90 * day, true
	case Yearly:
		return 365 * day, true
	}
	return 0, false
}

// Plan is the snapshot of the plan taken at creation: later plan edits never change what an
// existing subscription charges.
type Plan struct {
	Name          string      `json:"name"`
	PriceUSD      money.Cents `json:"priceUsdCents"`
	Period        Period      `json:"period"`
	PeriodSeconds int64       `json:"periodSeconds"` // derived from Period by DecideCreate
}

// ErrInvalid matches every error that means the caller's input cannot be accepted: malformed
// fields (wrapped with the reason) and each named reason below.
var ErrInvalid = errors.New("invalid subscription input")

// invalidError is a named reason that also matches ErrInvalid, so the transport maps one
// sentinel to invalid_input while tests and messages keep the precise reason.
type invalidError string

func (e invalidError) Error() string        { return string(e) }
func (e invalidError) Is(target error) bool { return target == ErrInvalid }

// Reasons to refuse a creation (and, for ErrOutsideWindow, a charge); each matches ErrInvalid.
var (
	ErrInvalidPlan     error = invalidError("the plan needs a positive price and a known period")
	ErrPlanInactive    error = invalidError("the plan is not active")
	ErrAccountMismatch error = invalidError("the permission's account is not the customer wallet")
	ErrWrongSpender    error = invalidError("the permission's spender is not the service operator")
	ErrWrongToken      error = invalidError("the permission's token is not USDC")
	ErrPeriodMismatch  error = invalidError("the permission's period does not equal the plan period")
	ErrAllowanceTooLow error = invalidError("the permission's allowance does not cover the plan price")
	ErrOutsideWindow   error = invalidError("now is outside the permission's [start, end)")
	ErrNotBoundToPlan  error = invalidError("the permission's extraData does not name the plan")
)

// Errors of the subscription's lifecycle; none matches ErrInvalid.
var (
	ErrExists         = errors.New("subscription already exists")
	ErrNotFound       = errors.New("subscription not found")
	ErrUnknownEvent   = errors.New("unknown subscription event")
	ErrAlreadyCharged = errors.New("this period is already charged")
	ErrWrongPeriod    = errors.New("not the next period to charge")
	ErrNotDue         = errors.New("no charge is due yet")
	ErrCancelled      = errors.New("the subscription is cancelled")
	ErrNotCustomer    = errors.New("only the subscribing customer may cancel")
	ErrEnded          = errors.New("the subscription has ended: the customer revoked its spend permission")
)

// State is a subscription as its events say. It is also what a read model can store.
type State struct {
	Exists              bool       `json:"exists"`
	ID                  string     `json:"subscriptionId"`
	PlanID              string     `json:"planId"`
	Merchant            string     `json:"merchantWallet"`
	Customer            string     `json:"customerWallet"`
	Plan                Plan       `json:"plan"`
	Permission          Permission `json:"permission"`
	Signature           string     `json:"permissionSignature"`
	PriceUnits          string     `json:"priceUnits"` // USDC base units charged each period
	Status              Status     `json:"status"`
	CreatedAt           int64      `json:"createdAt"`
	NextChargeAt        int64      `json:"nextChargeAt"`
	LastChargeAt        int64      `json:"lastChargeAt,omitempty"`
	Charges             int64      `json:"charges"`
	ConsecutiveFailures int        `json:"consecutiveFailures"`
	LastFailureReason   string     `json:"lastFailureReason,omitempty"`
	CancelledBy         string     `json:"cancelledBy,omitempty"`
	CancelledAt         int64      `json:"cancelledAt,omitempty"`
	UpdatedAt           int64      `json:"updatedAt"`
	Version             uint64     `json:"version"` // events folded: the stream version
}

// NextPeriod is the index of the next period to charge: periods are charged in order from 0, so
// it is the number of successful charges.
func (s State) NextPeriod() int64 { return s.Charges }

// Evolve applies one event; it is the only place state changes.
func Evolve(s State, e Event) State {
	s.Version++
	switch e := e.(type) {
	case Created:
		if s.Exists { // the first creation stands
			return s
		}
		s = State{Exists: true, ID: e.SubscriptionID, PlanID: e.PlanID, Merchant: e.Merchant, Customer: e.Customer,
			Plan: e.Plan, Permission: e.Permission, Signature: e.Signature, PriceUnits: e.PriceUnits,
			Status: StatusActive, CreatedAt: e.CreatedAt, NextChargeAt: e.NextChargeAt, UpdatedAt: e.CreatedAt,
			Version: s.Version}
	case Charged:
		s.Charges++
		s.LastChargeAt, s.NextChargeAt, s.UpdatedAt = e.ChargedAt, e.NextChargeAt, e.ChargedAt
		s.ConsecutiveFailures, s.LastFailureReason = 0, ""
		if s.Status == StatusPastDue {
			s.Status = StatusActive
		}
	case ChargeFailed:
		s.ConsecutiveFailures, s.LastFailureReason, s.UpdatedAt = e.Attempt, e.Reason, e.FailedAt
	case PastDue:
		if s.Status == StatusActive {
			s.Status = StatusPastDue
		}
		s.UpdatedAt = e.At
	case Cancelled:
		s.Status, s.CancelledBy, s.CancelledAt, s.UpdatedAt = StatusCancelled, e.By, e.At, e.At
	case PermissionRevoked:
		if s.Status != StatusCancelled {
			s.Status = StatusEnded
		}
		s.UpdatedAt = e.At
	}
	return s
}

// Fold replays events from the empty state.
func Fold(events []Event) State {
	var s State
	for _, e := range events {
		s = Evolve(s, e)
	}
	return s
}

// StatusAt is s's status as it reads at now: ended once its permission has (the manager refuses
// every spend from the permission's end on, so nothing is charged again), else its stored status.
// A cancelled subscription stays cancelled.
func (s State) StatusAt(now time.Time) Status {
	if s.Status != StatusCancelled && s.Permission.End > 0 && now.Unix() >= s.Permission.End {
		return StatusEnded
	}
	return s.Status
}

// Due tells whether a charge is due at now and for which period index: the subscription exists,
// is active or past_due, now >= nextChargeAt and now lies in the permission's [start, end).
// A due subscription is one DecideCharge accepts for that index.
func Due(s State, now time.Time) (periodIndex int64, ok bool) {
	if !s.Exists || s.Status == StatusCancelled || s.Status == StatusEnded || now.UnixMilli() < s.NextChargeAt || !s.Permission.Contains(now) {
		return 0, false
	}
	return s.NextPeriod(), true
}
