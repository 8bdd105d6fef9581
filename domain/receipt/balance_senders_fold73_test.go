package receipt

import (
	"reflect"
	"testing"
)

// TestBalanceCreditKeepsTheSendersItTakesOver (stop 73): a balance credit's senders are its
// step's dust senders and those of the credits it takes over (deposit_balance.go): a dropped
// balance credit (a later read holds its ETH), the balance credit of its key seen again, a
// dropped ETH transfer it holds; never those of a balance credit that still counts. Evolve and a
// Folder agree, and the event's senders are not changed. Each dropped credit's senders go to one
// balance credit (which passes them on if it drops), not to every later one: the state stays
// linear in the credits.
func TestBalanceCreditKeepsTheSendersItTakesOver(t *testing.T) {
	t.Parallel()
	balance := func(block string, number uint64, senders ...string) DepositTransferSeen {
		return DepositTransferSeen{TransactionHash: block, LogIndex: -2, BlockNumber: number, BlockHash: block, Token: "ETH",
			AmountUnits: "1000", Decimals: 18, Senders: senders}
	}
	eth := DepositTransferSeen{TransactionHash: "0xt", LogIndex: ETHLogIndex, BlockNumber: 4, BlockHash: "0xw", Sender: "0xE1",
		Token: "ETH", AmountUnits: "5000", Decimals: 18}
	drop := func(s DepositTransferSeen) DepositTransferDropped {
		return DepositTransferDropped{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockHash: s.BlockHash}
	}
	b1, b2 := balance("0xx", 5, "0xd1"), balance("0xy", 6, "0xd2")
	for _, tc := range []struct {
		name string
		evs  []Event
		last DepositTransferSeen // the balance credit whose senders are checked
		want []string
	}{
		{"a later balance credit takes over a dropped one's senders", []Event{b1, drop(b1)}, balance("0xy", 6, "0xd2"), []string{"0xd2", "0xd1"}},
		{"the balance credit of its key seen again keeps its senders", []Event{b1, drop(b1)}, balance("0xx", 5), []string{"0xd1"}},
		{"a dropped ETH transfer it holds names its sender", []Event{eth, drop(eth)}, balance("0xy", 6, "0xd2"), []string{"0xd2", "0xE1"}},
		{"both, in the credits' order", []Event{b1, eth, drop(eth), drop(b1)}, balance("0xy", 6), []string{"0xd1", "0xE1"}},
		{"a balance credit that still counts keeps its own", []Event{b1, confirmedOf(b1)}, balance("0xy", 6, "0xd2"), []string{"0xd2"}},
		{"an ETH transfer that counts is no dust it holds", []Event{eth, confirmedOf(eth)}, balance("0xy", 6, "0xd2"), []string{"0xd2"}},
		{"a sender once, in any case", []Event{balance("0xx", 5, "0xD1"), drop(balance("0xx", 5))}, balance("0xy", 6, "0xd1", "0xd2"), []string{"0xd1", "0xd2"}},
		{"none stay none", []Event{eth}, balance("0xy", 6), nil},
		{"a dropped credit is taken over once", []Event{b1, drop(b1), b2, eth, drop(eth), balance("0xz", 7)}, balance("0xv", 8, "0xd3"), []string{"0xd3"}},
		{"the credit that took them over passes them on when it drops", []Event{b1, drop(b1), b2, drop(b2)}, balance("0xz", 7, "0xd3"), []string{"0xd3", "0xd2", "0xd1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own := append([]string(nil), tc.last.Senders...)
			evs := append(append([]Event{}, tc.evs...), tc.last)
			for name, st := range map[string]State{"Evolve": evolveAll(depositReceipt(), evs), "Folder": Fold(depositReceipt(), evs...)} {
				c, ok := st.Credit(tc.last.TransactionHash, tc.last.LogIndex)
				if !ok || !reflect.DeepEqual(c.Senders, tc.want) {
					t.Errorf("%s: senders %q (%v), want %q", name, c.Senders, ok, tc.want)
				}
			}
			if !reflect.DeepEqual(tc.last.Senders, own) && len(own) > 0 {
				t.Errorf("the event's senders changed to %q", tc.last.Senders)
			}
		})
	}
}
