package subscription

import (
	"fmt"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/address"
)

// Create asks for a new subscription. The caller has recovered the signature to Customer and
// loaded the plan; Spender and Token are the operator and USDC addresses the permission must name.
type Create struct {
	ID         string
	PlanID     string
	PlanActive bool
	Plan       Plan // PeriodSeconds is derived from Period
	Merchant   string
	Customer   string
	Permission Permission
	Signature  string // 0x hex
	Spender    string // the operator account (CHAIN_OPERATOR_KEY's address)
	Token      string // the USDC contract
}

// Charge records a successful charge of period Period.
type Charge struct {
	Period            int64
	AmountUnits       string   // USDC base units spent; empty means the plan price
	TransactionHashes []string // at least one: the spend
}

// RecordFailure records a failed charge of period Period.
type RecordFailure struct {
	Period int64
	Reason string
}

// Cancel asks to cancel on behalf of wallet By.
type Cancel struct {
	By string
}

// DecideCreate decides the creation of a subscription; the first charge is due at now. Errors:
// ErrExists, ErrPlanInactive, ErrInvalidPlan, ErrInvalid (malformed id, wallet, permission field
// or signature, wrapped with the field), ErrAccountMismatch, ErrWrongSpender, ErrWrongToken,
// ErrPeriodMismatch, ErrAllowanceTooLow, ErrOutsideWindow, ErrNotBoundToPlan.
func DecideCreate(s State, c Create, now time.Time) ([]Event, error) {
	if s.Exists {
		return nil, ErrExists
	}
	plan, err := checkPlan(c)
	if err != nil {
		return nil, err
	}
	if err := checkIdentity(c); err != nil {
		return nil, err
	}
	p, err := c.Permission.normalized()
	if err != nil {
		return nil, err
	}
	if !SameAddress(p.Account, c.Customer) {
		return nil, fmt.Errorf("%w: account %s, customer %s", ErrAccountMismatch, p.Account, c.Customer)
	}
	if err := p.CheckParties(c.Spender, c.Token); err != nil {
		return nil, err
	}
	if p.Period != plan.PeriodSeconds {
		return nil, fmt.Errorf("%w: permission period %d s, plan period %s is %d s", ErrPeriodMismatch, p.Period, plan.Period, plan.PeriodSeconds)
	}
	allowance, _ := p.AllowanceInt() // valid: normalized checked it
	price := PriceUnits(plan.PriceUSD)
	if allowance.Cmp(price) < 0 {
		return nil, fmt.Errorf("%w: allowance %s, price %s base units", ErrAllowanceTooLow, allowance, price)
	}
	if !p.Contains(now) {
		return nil, fmt.Errorf("%w: now is %d, window is [%d, %d)", ErrOutsideWindow, now.Unix(), p.Start, p.End)
	}
	if want := PlanBinding(c.PlanID); p.ExtraData != want {
		return nil, fmt.Errorf("%w: plan %s needs permissionData.extraData %s (the plan id's UTF-8 bytes)", ErrNotBoundToPlan, c.PlanID, want)
	}
	at := now.UnixMilli()
	return []Event{Created{SubscriptionID: c.ID, PlanID: c.PlanID, Merchant: strings.ToLower(c.Merchant),
		Customer: strings.ToLower(c.Customer), Plan: plan, Permission: p, Signature: strings.ToLower(c.Signature),
		PriceUnits: price.String(), CreatedAt: at, NextChargeAt: at}}, nil
}

func checkPlan(c Create) (Plan, error) {
	if !c.PlanActive {
		return Plan{}, fmt.Errorf("%w: plan %s", ErrPlanInactive, c.PlanID)
	}
	plan := c.Plan
	seconds, ok := plan.Period.Seconds()
	if !ok || plan.PriceUSD <= 0 {
		return Plan{}, fmt.Errorf("%w: price %s, period %q", ErrInvalidPlan, plan.PriceUSD, plan.Period)
	}
	plan.PeriodSeconds = seconds
	return plan, nil
}

func checkIdentity(c Create) error {
	switch {
	case strings.TrimSpace(c.ID) == "" || strings.TrimSpace(c.PlanID) == "":
		return fmt.Errorf("%w: subscriptionId and planId are required", ErrInvalid)
	case !address.Valid(c.Merchant):
		return fmt.Errorf("%w: merchant wallet must be a 0x-prefixed 40-hex-character address", ErrInvalid)
	case !address.Valid(c.Customer):
		return fmt.Errorf("%w: customerWallet must be a 0x-prefixed 40-hex-character address", ErrInvalid)
	case c.Signature == "0x" || !bytesRE.MatchString(c.Signature):
		return fmt.Errorf("%w: permissionSignature must be 0x-prefixed hex bytes", ErrInvalid)
	}
	return nil
}

// DecideCharge records a successful charge of the next period (money the chain moved) and moves
// nextChargeAt by one period. It is recorded whatever the status, nextChargeAt and the
// permission's window say by now: a cancel or the permission's end that came while the spend was
// in flight does not undo the spend, and the log must show it (Due is the check before a charge
// is sent). Errors: ErrNotFound, ErrAlreadyCharged, ErrWrongPeriod, ErrInvalid (amount not in
// (0, allowance], no or malformed transaction hash).
func DecideCharge(s State, c Charge, now time.Time) ([]Event, error) {
	if err := inOrder(s, c.Period); err != nil {
		return nil, err
	}
	amount, err := s.chargeAmount(c.AmountUnits)
	if err != nil {
		return nil, err
	}
	if len(c.TransactionHashes) == 0 {
		return nil, fmt.Errorf("%w: a charge has at least one transaction hash", ErrInvalid)
	}
	hashes := make([]string, len(c.TransactionHashes))
	for i, h := range c.TransactionHashes {
		if !txHashRE.MatchString(h) {
			return nil, fmt.Errorf("%w: transaction hash %q is not 0x and 64 hex characters", ErrInvalid, h)
		}
		hashes[i] = strings.ToLower(h)
	}
	return []Event{Charged{PeriodIndex: c.Period, AmountUnits: amount, TransactionHashes: hashes,
		ChargedAt: now.UnixMilli(), NextChargeAt: s.NextChargeAt + s.Plan.PeriodSeconds*1000}}, nil
}

// chargeAmount is the canonical decimal of the amount spent: the price when none is given, else
// a positive amount the permission allows.
func (s State) chargeAmount(units string) (string, error) {
	if units == "" {
		return s.PriceUnits, nil
	}
	n, err := ParseUnits(units)
	if err != nil {
		return "", fmt.Errorf("amountUnits: %w", err)
	}
	allowance, err := s.Permission.AllowanceInt()
	if err != nil {
		return "", err
	}
	if n.Sign() == 0 || n.Cmp(allowance) > 0 {
		return "", fmt.Errorf("%w: amountUnits %s must be between 1 and the allowance %s", ErrInvalid, n, allowance)
	}
	return n.String(), nil
}

// chargeable checks that period p is the one a failure may be recorded for.
func chargeable(s State, p int64) error {
	if s.Exists && s.Status == StatusCancelled {
		return ErrCancelled
	}
	return inOrder(s, p)
}

// inOrder checks that p is the subscription's next period.
func inOrder(s State, p int64) error {
	next := s.NextPeriod()
	switch {
	case !s.Exists:
		return ErrNotFound
	case p >= 0 && p < next:
		return fmt.Errorf("%w: period %d (next is %d)", ErrAlreadyCharged, p, next)
	case p != next:
		return fmt.Errorf("%w: period %d, next is %d", ErrWrongPeriod, p, next)
	}
	return nil
}

// DecideFailure records a failed charge of the next period; nextChargeAt does not move. The
// PastDueAfter-th consecutive failure of an active subscription also makes it past_due. Errors:
// ErrNotFound, ErrCancelled, ErrAlreadyCharged, ErrWrongPeriod, ErrInvalid (empty reason).
func DecideFailure(s State, f RecordFailure, now time.Time) ([]Event, error) {
	if err := chargeable(s, f.Period); err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(f.Reason)
	if reason == "" {
		return nil, fmt.Errorf("%w: a failed charge needs a reason", ErrInvalid)
	}
	at := now.UnixMilli()
	attempt := s.ConsecutiveFailures + 1
	evs := []Event{ChargeFailed{PeriodIndex: f.Period, Reason: reason, Attempt: attempt, FailedAt: at}}
	if attempt >= PastDueAfter && s.Status == StatusActive {
		evs = append(evs, PastDue{PeriodIndex: f.Period, At: at})
	}
	return evs, nil
}

// ReasonRevoked is the failure reason of a charge the chain refuses because the customer
// revoked the spend permission (the charging chain's check says so in these words).
const ReasonRevoked = "the customer revoked the spend permission"

// ReasonPeriodSpent starts the charging chain's refusal of a spend whose on-chain period's
// allowance is spent. Only the operator spends, so it means this on-chain period was charged
// already (a late charge pushed the schedule into it): not the customer's failure, and the
// charge waits for the next on-chain period instead of being recorded as failed.
const ReasonPeriodSpent = "the permission's allowance for this period is spent"

// DecideRevoked records that the charge of period f.Period failed because the customer revoked
// the spend permission: the failure (ChargeFailed, as DecideFailure) and PermissionRevoked, which
// ends the subscription; past_due is not decided with it, the subscription having ended. Errors:
// those of DecideFailure, and ErrEnded when it has ended already.
func DecideRevoked(s State, f RecordFailure, now time.Time) ([]Event, error) {
	if s.Exists && s.Status == StatusEnded {
		return nil, ErrEnded
	}
	evs, err := DecideFailure(s, f, now)
	if err != nil {
		return nil, err
	}
	return []Event{evs[0], PermissionRevoked{PeriodIndex: f.Period, At: now.UnixMilli()}}, nil
}

// DecideCancel cancels on behalf of the subscribing customer. Cancelling twice is ErrCancelled
// rather than a silent success, so the caller can answer that nothing changed; the wallet is
// checked first so that a stranger learns nothing about the status. Errors: ErrNotFound,
// ErrNotCustomer, ErrCancelled.
func DecideCancel(s State, c Cancel, now time.Time) ([]Event, error) {
	switch {
	case !s.Exists:
		return nil, ErrNotFound
	case c.By == "" || !SameAddress(c.By, s.Customer):
		return nil, ErrNotCustomer
	case s.Status == StatusCancelled:
		return nil, ErrCancelled
	}
	return []Event{Cancelled{By: strings.ToLower(c.By), At: now.UnixMilli()}}, nil
}
