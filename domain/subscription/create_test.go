package subscription

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestCreate covers every creation rule: each rejected input has its own reason.
func TestCreate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(*Create)
		now    time.Time
		want   error
	}{
		{"valid", func(*Create) {}, testNow, nil},
		{"plan inactive", func(c *Create) { c.PlanActive = false }, testNow, ErrPlanInactive},
		{"zero price", func(c *Create) { c.Plan.PriceUSD = 0 }, testNow, ErrInvalidPlan},
		{"negative price", func(c *Create) { c.Plan.PriceUSD = -1 }, testNow, ErrInvalidPlan},
		{"unknown period", func(c *Create) { c.Plan.Period = "DAILY" }, testNow, ErrInvalidPlan},
		{"lower-case period is not the enum", func(c *Create) { c.Plan.Period = "monthly" }, testNow, ErrInvalidPlan},
		{"permission period is a week for a monthly plan", func(c *Create) { c.Permission.Period = 7 * day }, testNow, ErrPeriodMismatch},
		{"permission period one second short", func(c *Create) { c.Permission.Period = month - 1 }, testNow, ErrPeriodMismatch},
		{"allowance one unit below the price", func(c *Create) { c.Permission.Allowance = "9989999" }, testNow, ErrAllowanceTooLow},
		{"allowance above the price", func(c *Create) { c.Permission.Allowance = "20000000" }, testNow, nil},
		{"allowance zero", func(c *Create) { c.Permission.Allowance = "0" }, testNow, ErrInvalid},
		{"allowance as a decimal", func(c *Create) { c.Permission.Allowance = "9.99" }, testNow, ErrInvalid},
		{"allowance in exponent form", func(c *Create) { c.Permission.Allowance = "1e7" }, testNow, ErrInvalid},
		{"allowance negative", func(c *Create) { c.Permission.Allowance = "-9990000" }, testNow, ErrInvalid},
		{"allowance above uint160", func(c *Create) { c.Permission.Allowance = "1" + strings.Repeat("0", 49) }, testNow, ErrInvalid},
		{"now at start", func(c *Create) { c.Permission.Start = testNow.Unix() }, testNow, nil},
		{"now before start", func(c *Create) { c.Permission.Start = testNow.Unix() + 1 }, testNow, ErrOutsideWindow},
		{"now half a second before start", func(c *Create) { c.Permission.Start = testNow.Unix() + 1 }, testNow.Add(500 * time.Millisecond), ErrOutsideWindow},
		{"now just before end", func(c *Create) { c.Permission.End = testNow.Unix() + 1 }, testNow.Add(999 * time.Millisecond), nil},
		{"now at end", func(c *Create) { c.Permission.End = testNow.Unix() }, testNow, ErrOutsideWindow},
		{"start after end", func(c *Create) { c.Permission.Start, c.Permission.End = testNow.Unix(), testNow.Unix()-1 }, testNow, ErrInvalid},
		{"end beyond uint48", func(c *Create) { c.Permission.End = maxUint48 + 1 }, testNow, ErrInvalid},
		{"account is not the customer", func(c *Create) { c.Permission.Account = stranger }, testNow, ErrAccountMismatch},
		{"account in another case", func(c *Create) { c.Permission.Account = strings.ToLower(customer) }, testNow, nil},
		{"spender is not the operator", func(c *Create) { c.Permission.Spender = stranger }, testNow, ErrWrongSpender},
		{"no operator configured", func(c *Create) { c.Spender = "" }, testNow, ErrWrongSpender},
		{"token is not USDC", func(c *Create) { c.Permission.Token = stranger }, testNow, ErrWrongToken},
		{"malformed token address", func(c *Create) { c.Permission.Token = "0x12" }, testNow, ErrInvalid},
		{"hex salt", func(c *Create) { c.Permission.Salt = "0xFF" }, testNow, nil},
		{"malformed salt", func(c *Create) { c.Permission.Salt = "salt" }, testNow, ErrInvalid},
		{"salt above uint256", func(c *Create) { c.Permission.Salt = "0x1" + strings.Repeat("0", 64) }, testNow, ErrInvalid},
		{"extraData names the plan in upper-case hex", func(c *Create) { c.Permission.ExtraData = "0x706C616E5F31" }, testNow, nil},
		{"empty extraData names no plan", func(c *Create) { c.Permission.ExtraData = "" }, testNow, ErrNotBoundToPlan},
		{"extraData 0x names no plan", func(c *Create) { c.Permission.ExtraData = "0x" }, testNow, ErrNotBoundToPlan},
		{"extraData names another plan", func(c *Create) { c.Permission.ExtraData = PlanBinding("plan_2") }, testNow, ErrNotBoundToPlan},
		{"extraData names the plan with more after it", func(c *Create) { c.Permission.ExtraData = PlanBinding("plan_1") + "00" }, testNow, ErrNotBoundToPlan},
		{"extraData is the plan's binding, the plan another", func(c *Create) { c.PlanID = "plan_2" }, testNow, ErrNotBoundToPlan},
		{"odd-length extraData", func(c *Create) { c.Permission.ExtraData = "0xabc" }, testNow, ErrInvalid},
		{"empty signature", func(c *Create) { c.Signature = "0x" }, testNow, ErrInvalid},
		{"signature not hex", func(c *Create) { c.Signature = "signed" }, testNow, ErrInvalid},
		{"malformed customer wallet", func(c *Create) { c.Customer = "bob" }, testNow, ErrInvalid},
		{"no id", func(c *Create) { c.ID = " " }, testNow, ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := createCmd()
			c.change(&cmd)
			evs, err := DecideCreate(State{}, cmd, c.now)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("%v does not match ErrInvalid: callers could not answer invalid_input", err)
				}
				return
			}
			if len(evs) != 1 || TypeOf(evs[0]) != EventCreated {
				t.Fatalf("events %v, want one %s", evs, EventCreated)
			}
		})
	}
}

func TestCreatedEvent(t *testing.T) {
	t.Parallel()
	evs, err := DecideCreate(State{}, createCmd(), testNow)
	if err != nil {
		t.Fatal(err)
	}
	e := evs[0].(Created)
	if e.PriceUnits != "9990000" || e.Plan.PeriodSeconds != month {
		t.Errorf("price %s units, period %d s", e.PriceUnits, e.Plan.PeriodSeconds)
	}
	if e.CreatedAt != testNow.UnixMilli() || e.NextChargeAt != e.CreatedAt {
		t.Errorf("createdAt %d, nextChargeAt %d: the first charge is due at once", e.CreatedAt, e.NextChargeAt)
	}
	if e.Customer != strings.ToLower(customer) || e.Permission.Account != e.Customer || e.Permission.Spender != operator {
		t.Errorf("wallets not lower-case: %+v", e)
	}
	s := Evolve(State{}, e)
	if s.Status != StatusActive || s.NextPeriod() != 0 || s.Version != 1 {
		t.Errorf("state %+v", s)
	}
	if _, err := DecideCreate(s, createCmd(), testNow); !errors.Is(err, ErrExists) {
		t.Errorf("second creation: %v, want ErrExists", err)
	}
}

// TestCreatedPermissionIsCanonical: the permission is stored in one spelling of the values the
// customer signed, so that what is stored (and charged) does not depend on how it was written.
func TestCreatedPermissionIsCanonical(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ salt, allowance, extra string }{
		{"7", "9990000", "0x706c616e5f31"}, {"0x7", "09990000", "0x706C616E5F31"}, {"007", "0009990000", "0x706c616E5f31"}, {"0X07", "9990000", "0x706c616e5f31"},
	} {
		cmd := createCmd()
		cmd.Permission.Salt, cmd.Permission.Allowance, cmd.Permission.ExtraData = c.salt, c.allowance, c.extra
		evs, err := DecideCreate(State{}, cmd, testNow)
		if c.salt == "0X07" { // not a spelling the API takes
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("salt %q: %v, want ErrInvalid", c.salt, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		p := evs[0].(Created).Permission
		if p.Salt != "7" || p.Allowance != "9990000" || p.ExtraData != "0x706c616e5f31" {
			t.Fatalf("%+v stored as salt %q, allowance %q, extraData %q", c, p.Salt, p.Allowance, p.ExtraData)
		}
	}
}

// TestPeriods checks each plan period against the permission period it needs.
func TestPeriods(t *testing.T) {
	t.Parallel()
	for p, days := range map[Period]int64{Weekly: 7, Biweekly: 14, Monthly: 30, Quarterly: 90, Yearly: 365} {
		t.Run(string(p), func(t *testing.T) {
			cmd := createCmd()
			cmd.Plan.Period, cmd.Permission.Period = p, days*day
			if _, err := DecideCreate(State{}, cmd, testNow); err != nil {
				t.Fatalf("%d days: %v", days, err)
			}
			cmd.Permission.Period = days*day + 1
			if _, err := DecideCreate(State{}, cmd, testNow); !errors.Is(err, ErrPeriodMismatch) {
				t.Fatalf("one second more: %v, want ErrPeriodMismatch", err)
			}
		})
	}
}

func TestErrorsMatchInvalidOnlyForInput(t *testing.T) {
	t.Parallel()
	for _, err := range []error{ErrInvalidPlan, ErrPlanInactive, ErrAccountMismatch, ErrWrongSpender, ErrWrongToken,
		ErrPeriodMismatch, ErrAllowanceTooLow, ErrOutsideWindow, ErrNotBoundToPlan} {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%v should match ErrInvalid", err)
		}
	}
	for _, err := range []error{ErrExists, ErrNotFound, ErrAlreadyCharged, ErrWrongPeriod, ErrNotDue, ErrCancelled, ErrNotCustomer} {
		if errors.Is(err, ErrInvalid) {
			t.Errorf("%v should not match ErrInvalid", err)
		}
	}
	if errors.Is(ErrPeriodMismatch, ErrAllowanceTooLow) {
		t.Error("distinct reasons match each other")
	}
}

// TestCreateNeedsAPermissionBoundToItsPlan: a signed permission names its plan in extraData
// (PlanBinding), so whoever holds the signature cannot create it on another merchant's plan of
// the same price and period: that merchant would have been paid every period, and the
// customer's own creation on the plan they chose refused (one permission, one subscription).
func TestCreateNeedsAPermissionBoundToItsPlan(t *testing.T) {
	t.Parallel()
	mine := createCmd() // plan_1 of merchant, extraData PlanBinding("plan_1")
	if _, err := DecideCreate(State{}, mine, testNow); err != nil {
		t.Fatalf("on its own plan: %v", err)
	}
	theirs := mine
	theirs.PlanID, theirs.Merchant = "plan_2", stranger // same price and period
	if _, err := DecideCreate(State{}, theirs, testNow); !errors.Is(err, ErrNotBoundToPlan) ||
		!strings.Contains(err.Error(), PlanBinding("plan_2")) {
		t.Fatalf("on another merchant's plan: %v, want ErrNotBoundToPlan naming the extraData plan_2 needs", err)
	}
	unbound := mine
	unbound.Permission.ExtraData = "0x"
	if _, err := DecideCreate(State{}, unbound, testNow); !errors.Is(err, ErrNotBoundToPlan) {
		t.Fatalf("a permission naming no plan: %v, want ErrNotBoundToPlan", err)
	}
	if got := PlanBinding("plan_1"); got != "0x706c616e5f31" {
		t.Fatalf("PlanBinding(plan_1) = %s: the plan id's UTF-8 bytes in lower-case hex", got)
	}
}
