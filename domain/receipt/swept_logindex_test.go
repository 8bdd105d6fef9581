package receipt

import (
	"encoding/json"
	"maps"
	"testing"
)

// TestUnsweptInTheSweepsOwnBlock (stop 69): a credited token transfer mined in the block of the
// token's latest sweep, with its Transfer log after the sweep's Swept event, was not moved by it,
// so it is unswept however much dust that sweep moved (before, one no larger than the excess
// looked swept and waited at the deposit). One before the Swept event, an ETH credit (no log) and
// a sweep recorded without its log index count by the difference only, as before.
func TestUnsweptInTheSweepsOwnBlock(t *testing.T) {
	t.Parallel()
	at := func(i int) *int { return &i }
	type credit struct {
		tx, token, units string
		block            uint64
		log              int
	}
	paid := credit{"0xP", "USDC", "12310000", 5, 0}
	dustSwept := DepositSwept{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "12400000", BlockNumber: 9, LogIndex: at(4)} // 0.09 of dust
	for name, c := range map[string]struct {
		credits []credit
		sweeps  []DepositSwept
		want    map[string]string
	}{
		"after the Swept event, under the dust it moved": {
			[]credit{paid, {"0xL", "USDC", "50000", 9, 7}}, []DepositSwept{dustSwept}, map[string]string{"USDC": "50000"}},
		"after the Swept event, over the dust it moved": {
			[]credit{paid, {"0xL", "USDC", "150000", 9, 7}}, []DepositSwept{dustSwept}, map[string]string{"USDC": "150000"}},
		"before the Swept event (moved by it)": {
			[]credit{paid, {"0xL", "USDC", "50000", 9, 1}}, []DepositSwept{dustSwept}, nil},
		"before the Swept event, over the dust": {
			[]credit{paid, {"0xL", "USDC", "150000", 9, 1}}, []DepositSwept{dustSwept}, map[string]string{"USDC": "60000"}},
		"a sweep recorded without its log index": {
			[]credit{paid, {"0xL", "USDC", "50000", 9, 7}},
			[]DepositSwept{{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "12400000", BlockNumber: 9}}, nil},
		"two sweeps in one block, the later one's index": {
			[]credit{paid, {"0xL", "USDC", "50000", 9, 7}},
			[]DepositSwept{dustSwept, {TransactionHash: "0xS2", Token: "USDC", AmountUnits: "1", BlockNumber: 9, LogIndex: at(8)}}, nil},
		"two sweeps in one block, one without its index": {
			[]credit{paid, {"0xL", "USDC", "50000", 9, 7}},
			[]DepositSwept{{TransactionHash: "0xS0", Token: "USDC", AmountUnits: "1", BlockNumber: 9}, dustSwept}, nil},
		"a sweep in a later block than the transfer": {
			[]credit{paid, {"0xL", "USDC", "50000", 9, 7}},
			[]DepositSwept{{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "12400000", BlockNumber: 10, LogIndex: at(0)}}, nil},
		"ETH in the sweep's block (no log)": {
			[]credit{paid, {"0xE", "ETH", "1000", 9, ETHLogIndex}},
			[]DepositSwept{dustSwept, {TransactionHash: "0xS1", Token: "ETH", AmountUnits: "5000", BlockNumber: 9, LogIndex: at(5)}},
			nil},
	} {
		s := depositReceipt()
		for _, cr := range c.credits {
			seen := transfer(cr.tx, cr.token, cr.units, 6, "0xb"+cr.tx)
			seen.BlockNumber, seen.LogIndex = cr.block, cr.log
			if cr.token == "ETH" {
				seen.Decimals = 18
			}
			s, _ = observe(t, s, DepositObservation{Transfer: seen, Confirmed: true})
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

// TestDepositSweptLogIndexJSON: the log index is kept through the event's JSON, and events
// recorded before stop 69 (none) decode without one.
func TestDepositSweptLogIndexJSON(t *testing.T) {
	t.Parallel()
	li := 4
	b, err := json.Marshal(DepositSwept{TransactionHash: "0xS1", Token: "USDC", AmountUnits: "1", BlockNumber: 9, LogIndex: &li, At: 3})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(EventDepositSwept, b)
	if w, ok := d.(DepositSwept); err != nil || !ok || w.LogIndex == nil || *w.LogIndex != 4 {
		t.Fatalf("Decode(%s) = %#v, %v", b, d, err)
	}
	d, err = Decode(EventDepositSwept, []byte(`{"transactionHash":"0xS1","token":"USDC","amountUnits":"1","blockNumber":9,"at":3}`))
	if w, ok := d.(DepositSwept); err != nil || !ok || w.LogIndex != nil {
		t.Fatalf("old event: %#v, %v", d, err)
	}
}
