package subscription

import (
	"strings"
	"testing"
	"time"
)

var (
	testNow  = time.Unix(1_800_000_000, 0)
	merchant = "0x" + strings.Repeat("a", 40)
	customer = "0x" + strings.Repeat("B", 40) // mixed case on purpose: stored lower-case
	operator = "0x" + strings.Repeat("c", 40)
	usdc     = "0x" + strings.Repeat("d", 40)
	stranger = "0x" + strings.Repeat("e", 40)
	txA      = "0x" + strings.Repeat("A1", 32)
	txB      = "0x" + strings.Repeat("b2", 32)
)

const month = int64(30 * day)

// createCmd is a valid monthly subscription at 9.99 USD whose permission runs a year from
// just before testNow.
func createCmd() Create {
	return Create{
		ID: "sub_1", PlanID: "plan_1", PlanActive: true,
		Plan:     Plan{Name: "Pro", PriceUSD: 999, Period: Monthly},
		Merchant: merchant, Customer: customer, Spender: operator, Token: usdc,
		Permission: Permission{Account: customer, Spender: "0x" + strings.Repeat("C", 40), Token: usdc, // checksummed case: compared case-insensitively
			Allowance: "9990000", Period: month, Start: testNow.Unix() - 10, End: testNow.Unix() + 365*day, Salt: "42", ExtraData: "0x706c616e5f31"}, // "plan_1": PlanBinding
		Signature: "0x" + strings.Repeat("ab", 65),
	}
}

// created is the state right after a valid creation at testNow.
func created(t testing.TB) State {
	t.Helper()
	evs, err := DecideCreate(State{}, createCmd(), testNow)
	return apply(t, State{}, evs, err)
}

// apply folds a decision's result into s, like the command pipeline does.
func apply(t testing.TB, s State, evs []Event, err error) State {
	t.Helper()
	if err != nil {
		t.Fatalf("decide: %v", err)
	}
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s
}

// at is the time of the period-th scheduled charge of a subscription created at testNow.
func at(period int64) time.Time { return testNow.Add(time.Duration(period*month) * time.Second) }

// charged charges s's next period at now.
func charged(t testing.TB, s State, now time.Time) State {
	t.Helper()
	evs, err := DecideCharge(s, Charge{Period: s.NextPeriod(), TransactionHashes: []string{txA}}, now)
	return apply(t, s, evs, err)
}

// failed records n failures of s's next period at now.
func failed(t testing.TB, s State, n int, now time.Time) State {
	t.Helper()
	for range n {
		evs, err := DecideFailure(s, RecordFailure{Period: s.NextPeriod(), Reason: "insufficient balance"}, now)
		s = apply(t, s, evs, err)
	}
	return s
}

// cancelled cancels s by the customer at now.
func cancelled(t testing.TB, s State, now time.Time) State {
	t.Helper()
	evs, err := DecideCancel(s, Cancel{By: customer}, now)
	return apply(t, s, evs, err)
}
