package receipt

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// TestUnsweptETHInTheSweepsOwnBlock (stop 70): an ETH credit (no log) mined in the block of the
// ETH's latest sweep, in a transaction after the sweep's, was not moved by it, so it is unswept
// however much ETH dust that sweep moved; before, it counted by the difference only and, no
// larger than that dust, looked swept and waited at the deposit. One in a transaction before the
// sweep's, and a sweep or a credit recorded without its transaction index, count by the
// difference only, as before.
func TestUnsweptETHInTheSweepsOwnBlock(t *testing.T) {
	t.Parallel()
	at := func(i int) *int { return &i }
	type credit struct {
		tx, units string
		block     uint64
		txIndex   *int
	}
	paid := credit{"0xP", "1000000", 5, at(0)}
	sweep := DepositSwept{TransactionHash: "0xS1", Token: "ETH", AmountUnits: "1005000", BlockNumber: 9, LogIndex: at(5), TxIndex: at(3)} // 5,000 wei of dust
	for name, c := range map[string]struct {
		credits []credit
		sweep   DepositSwept
		want    map[string]string
	}{
		"in a transaction after the sweep's, under the dust it moved": {
			[]credit{paid, {"0xL", "3000", 9, at(4)}}, sweep, map[string]string{"ETH": "3000"}},
		"in a transaction before the sweep's (moved by it)": {
			[]credit{paid, {"0xL", "3000", 9, at(2)}}, sweep, nil},
		"a credit recorded without its transaction index": {
			[]credit{paid, {"0xL", "3000", 9, nil}}, sweep, nil},
		"a sweep recorded without its transaction index": {
			[]credit{paid, {"0xL", "3000", 9, at(4)}},
			DepositSwept{TransactionHash: "0xS1", Token: "ETH", AmountUnits: "1005000", BlockNumber: 9, LogIndex: at(5)}, nil},
		"in a later block": {
			[]credit{paid, {"0xL", "3000", 10, at(0)}}, sweep, map[string]string{"ETH": "3000"}},
	} {
		s := depositReceipt()
		for _, cr := range c.credits {
			seen := transfer(cr.tx, "ETH", cr.units, 18, "0xb"+cr.tx)
			seen.BlockNumber, seen.TxIndex = cr.block, cr.txIndex
			s, _ = observe(t, s, DepositObservation{Transfer: seen, Confirmed: true})
		}
		evs, err := RecordSweeps(s, []DepositSwept{c.sweep})
		if err != nil || len(evs) != 1 {
			t.Fatalf("%s: RecordSweeps = %v, %v", name, evs, err)
		}
		s = Evolve(s, evs[0])
		got := map[string]string{}
		for token, n := range s.Unswept() {
			got[token] = n.String()
		}
		want := c.want
		if want == nil {
			want = map[string]string{}
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: unswept %v, want %v", name, got, want)
		}
	}
}

// TestTxIndexJSON: the transaction index of a transfer seen and of a sweep is kept through the
// events' JSON and omitted when not known, and events recorded before stop 70 decode without one.
func TestTxIndexJSON(t *testing.T) {
	t.Parallel()
	ti := 7
	for _, c := range []struct {
		typ  string
		ev   Event
		old  string
		read func(Event) *int
	}{
		{EventDepositTransferSeen, DepositTransferSeen{TransactionHash: "0x1", LogIndex: ETHLogIndex, Token: "ETH", AmountUnits: "1", TxIndex: &ti},
			`{"transactionHash":"0x1","logIndex":-1,"blockNumber":9,"blockHash":"0xb","sender":"0xs","token":"ETH","amountUnits":"1","decimals":18,"at":3}`,
			func(e Event) *int { return e.(DepositTransferSeen).TxIndex }},
		{EventDepositSwept, DepositSwept{TransactionHash: "0xS1", Token: "ETH", AmountUnits: "1", TxIndex: &ti},
			`{"transactionHash":"0xS1","token":"ETH","amountUnits":"1","blockNumber":9,"logIndex":4,"at":3}`,
			func(e Event) *int { return e.(DepositSwept).TxIndex }},
	} {
		b, err := json.Marshal(c.ev)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(c.typ, b)
		if err != nil || c.read(d) == nil || *c.read(d) != 7 {
			t.Fatalf("Decode(%s) = %#v, %v", b, d, err)
		}
		d, err = Decode(c.typ, []byte(c.old))
		if err != nil || c.read(d) != nil {
			t.Fatalf("old %s: %#v, %v", c.typ, d, err)
		}
		c.read(d) // decoded
		if b, _ := json.Marshal(d); strings.Contains(string(b), "txIndex") {
			t.Fatalf("old %s written back with a txIndex: %s", c.typ, b)
		}
	}
}
