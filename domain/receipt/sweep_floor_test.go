package receipt

import (
	"slices"
	"testing"

	"github.com/payledger/payledger/domain/money"
)

// TestSweepHeldUnderTheFloor (stop 70): a failed receipt's unswept funds are swept only once
// they are worth 1/DustShare of its price (at least a cent's worth) and the configured minimum;
// funds in a token it cannot value count nothing; a receipt that is not failed is swept whatever
// the size. 12.31 USD receipt: the floor is 123,100 USDC base units, or 0.00004 ETH at a quote of
// 0.004 ETH. Before, SweepHeld did not exist and every unswept unit was swept (57,000 gas).
func TestSweepHeldUnderTheFloor(t *testing.T) {
	t.Parallel()
	type credit struct{ token, units string }
	usdc := func(units string) credit { return credit{"USDC", units} }
	eth := func(wei string) credit { return credit{"ETH", wei} }
	for _, c := range []struct {
		name     string
		base     func() State
		status   Status
		credits  []credit
		swept    string // USDC base units recorded swept after the first credit ("" none)
		min      money.Cents
		held     bool
		unvalued []string
	}{
		{"one base unit of a failed receipt", depositReceipt, StatusFailed, []credit{usdc("1")}, "", 0, true, nil},
		{"just under 1% of the price", depositReceipt, StatusFailed, []credit{usdc("123099")}, "", 0, true, nil},
		{"1% of the price", depositReceipt, StatusFailed, []credit{usdc("123100")}, "", 0, false, nil},
		{"dust lifted over the floor by a later transfer", depositReceipt, StatusFailed, []credit{usdc("1"), usdc("123099")}, "", 0, false, nil},
		{"one wei at an ETH quote", quotedETH, StatusFailed, []credit{eth("1")}, "", 0, true, nil},
		{"1% of the price in ETH", quotedETH, StatusFailed, []credit{eth("40000000000000")}, "", 0, false, nil},
		{"USDC and ETH together over the floor", quotedETH, StatusFailed, []credit{usdc("100000"), eth("10000000000000")}, "", 0, false, nil},
		{"one unit after a sweep", depositReceipt, StatusFailed, []credit{usdc("400000"), usdc("1")}, "400000", 0, true, nil},
		{"a configured minimum over 1%", depositReceipt, StatusFailed, []credit{usdc("1999999")}, "", 200, true, nil},
		{"at the configured minimum", depositReceipt, StatusFailed, []credit{usdc("2000000")}, "", 200, false, nil},
		{"a cent's worth of a 0.05 receipt", smallDepositReceipt, StatusFailed, []credit{usdc("9999")}, "", 0, true, nil},
		{"a cent of a 0.05 receipt", smallDepositReceipt, StatusFailed, []credit{usdc("10000")}, "", 0, false, nil},
		{"an EUR receipt without a rate", eurDepositReceipt, StatusFailed, []credit{usdc("50000000")}, "", 0, true, []string{"USDC"}},
		{"a paid receipt's one unit", depositReceipt, StatusPaid, []credit{usdc("1")}, "", 0, false, nil},
		{"a pending receipt's one unit", depositReceipt, StatusPending, []credit{usdc("1")}, "", 1000, false, nil},
		{"nothing unswept", depositReceipt, StatusFailed, []credit{usdc("1")}, "1", 0, false, nil},
	} {
		s := c.base()
		for i, cr := range c.credits {
			dec := uint8(6)
			if cr.token == "ETH" {
				dec = 18
			}
			seen := transfer("0x"+string(rune('a'+i)), cr.token, cr.units, dec, "0xb")
			seen.BlockNumber = uint64(5 + 2*i)
			s, _ = observe(t, s, DepositObservation{Transfer: seen, Confirmed: true})
			if i == 0 && c.swept != "" {
				s = Evolve(s, DepositSwept{TransactionHash: "0xS", Token: "USDC", AmountUnits: c.swept, BlockNumber: 6})
			}
		}
		s.Status = c.status
		if got := s.SweepHeld(c.min); got != c.held {
			t.Errorf("%s: held %v, want %v (unswept %v)", c.name, got, c.held, s.Unswept())
		}
		if got := s.UnsweptUnvalued(); !slices.Equal(got, c.unvalued) {
			t.Errorf("%s: unvalued %v, want %v", c.name, got, c.unvalued)
		}
	}
}

// quotedETH is depositReceipt (12.31 USD) with an ETH quote of 0.004 ETH.
func quotedETH() State {
	return Evolve(depositReceipt(), TokenQuoted{Token: "ETH", Amount: "0.004", At: 2})
}

// smallDepositReceipt is a 0.05 USD receipt with a deposit address.
func smallDepositReceipt() State {
	return Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Currency: "USD", Total: 5,
		LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 5}}, DepositAddress: "0xD", DepositSplit: "0xS", CreatedAt: 1})
}
