package receipt

import (
	"maps"
	"testing"
)

// TestUnsweptCountsTransfersAfterTheLatestSweep: a sweep moves the deposit's whole balance, dust
// included, so the recorded sweeps may exceed the credits; a credited transfer mined after the
// token's latest recorded sweep is unswept however large that excess (before, one no larger than
// it looked swept and stayed at the deposit). Nothing swept empty is ever unswept: what is
// unswept never exceeds what the deposit holds once its sweeps are recorded.
func TestUnsweptCountsTransfersAfterTheLatestSweep(t *testing.T) {
	t.Parallel()
	type credit struct {
		tx, token, units string
		block            uint64
		confirmed        bool
	}
	paid := credit{"0xP", "USDC", "12310000", 5, true}                                                         // the payment, 12.31 USDC
	dustSwept := DepositSwept{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "12400000", BlockNumber: 9} // 0.09 USDC of dust with it
	for name, c := range map[string]struct {
		credits []credit
		sweeps  []DepositSwept
		want    map[string]string
	}{
		"nothing swept yet":           {[]credit{paid}, nil, map[string]string{"USDC": "12310000"}},
		"dust swept with the payment": {[]credit{paid}, []DepositSwept{dustSwept}, nil},
		"a transfer after the sweep, under the dust it moved": {
			[]credit{paid, {"0xL", "USDC", "50000", 12, true}}, []DepositSwept{dustSwept}, map[string]string{"USDC": "50000"}},
		"a transfer after the sweep, over the dust it moved": {
			[]credit{paid, {"0xL", "USDC", "150000", 12, true}}, []DepositSwept{dustSwept}, map[string]string{"USDC": "150000"}},
		"two transfers after the sweep": {
			[]credit{paid, {"0xL", "USDC", "50000", 12, true}, {"0xM", "USDC", "60000", 14, true}}, []DepositSwept{dustSwept},
			map[string]string{"USDC": "110000"}},
		"a transfer after the sweep, not confirmed yet": {
			[]credit{paid, {"0xL", "USDC", "50000", 12, false}}, []DepositSwept{dustSwept}, nil},
		"a transfer confirmed after the sweep was recorded, mined before it": {
			[]credit{paid, {"0xL", "USDC", "50000", 8, true}}, []DepositSwept{dustSwept}, nil},
		// The sweep's place in its block is not recorded: a transfer there counts by the difference only.
		"a transfer in the sweep's block, under the dust": {
			[]credit{paid, {"0xL", "USDC", "50000", 9, true}}, []DepositSwept{dustSwept}, nil},
		"a transfer in the sweep's block, over the dust": {
			[]credit{paid, {"0xL", "USDC", "150000", 9, true}}, []DepositSwept{dustSwept}, map[string]string{"USDC": "60000"}},
		"the later transfer swept too": {
			[]credit{paid, {"0xL", "USDC", "50000", 12, true}},
			[]DepositSwept{dustSwept, {TransactionHash: "0xS2", Token: "USDC", AmountUnits: "50000", BlockNumber: 13}}, nil},
		"the later transfer swept with more dust": {
			[]credit{paid, {"0xL", "USDC", "50000", 12, true}},
			[]DepositSwept{dustSwept, {TransactionHash: "0xS2", Token: "USDC", AmountUnits: "80000", BlockNumber: 13}}, nil},
		"sweeps recorded out of block order": {
			[]credit{paid, {"0xL", "USDC", "50000", 12, true}},
			[]DepositSwept{{TransactionHash: "0xS2", Token: "USDC", AmountUnits: "50000", BlockNumber: 13}, dustSwept}, nil},
		"a sweep short of the credits (another's sweep not recorded yet)": {
			[]credit{paid, {"0xL", "USDC", "50000", 12, true}},
			[]DepositSwept{{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "12000000", BlockNumber: 9}},
			map[string]string{"USDC": "360000"}},
		"a later sweep of another token covers nothing": {
			[]credit{paid, {"0xE", "ETH", "1000", 12, true}},
			[]DepositSwept{dustSwept, {TransactionHash: "0xS1", Token: "ETH", AmountUnits: "5000", BlockNumber: 9},
				{TransactionHash: "0xS3", Token: "USDC", AmountUnits: "7", BlockNumber: 20}},
			map[string]string{"ETH": "1000"}},
		"ETH after its sweep, USDC swept": {
			[]credit{paid, {"0xE", "ETH", "1000", 12, true}},
			[]DepositSwept{dustSwept, {TransactionHash: "0xS1", Token: "ETH", AmountUnits: "5000", BlockNumber: 9}},
			map[string]string{"ETH": "1000"}},
		"a sweep without its block": {
			[]credit{paid, {"0xL", "USDC", "50000", 12, true}},
			[]DepositSwept{{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "12400000"}}, nil},
	} {
		s := depositReceipt()
		for _, cr := range c.credits {
			seen := transfer(cr.tx, cr.token, cr.units, 6, "0xb"+cr.tx)
			seen.BlockNumber = cr.block
			if cr.token == "ETH" {
				seen.Decimals = 18
			}
			s, _ = observe(t, s, DepositObservation{Transfer: seen, Confirmed: cr.confirmed})
		}
		for _, w := range c.sweeps {
			evs, err := RecordSweeps(s, []DepositSwept{w})
			if err != nil || len(evs) != 1 {
				t.Fatalf("%s: RecordSweeps = %v, %v", name, evs, err)
			}
			s = Evolve(s, evs[0])
		}
		got := map[string]string{}
		for token, n := range s.Unswept() {
			got[token] = n.String()
		}
		want := c.want
		if want == nil {
			want = map[string]string{}
		}
		if !maps.Equal(got, want) || s.Swept() != (len(want) == 0) {
			t.Errorf("%s: unswept %v (swept %v), want %v", name, got, s.Swept(), want)
		}
	}
}
