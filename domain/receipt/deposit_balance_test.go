package receipt

import (
	"maps"
	"testing"
)

// balanceSeen is the detector's balance credit of block n: the deposit's ETH at its end beyond
// what was credited, keyed by the block's hash and a log index below ETHLogIndex.
func balanceSeen(n uint64, units string) DepositTransferSeen {
	h := "0xblock" + string(rune('a'+n))
	return DepositTransferSeen{TransactionHash: h, LogIndex: -2, BlockNumber: n, BlockHash: h, Token: "ETH", AmountUnits: units, Decimals: 18}
}

// TestETHHeldByABalanceCreditIsNotCreditedAgain (stop 71): an ETH transfer mined at or before the
// block of a balance credit that is not dropped, and not credited yet, is held by that credit (the
// balance read there counted it): observing it adds nothing. Recorded, it counted twice (a dust
// transfer judged again by a reorg's rescan once the balance credit had lowered what is due). One
// mined after the balance's block, one whose balance credit was dropped, a token transfer, and a
// transfer credited before (confirmed at its depth) are recorded as before.
func TestETHHeldByABalanceCreditIsNotCreditedAgain(t *testing.T) {
	t.Parallel()
	eth := func(tx string, block uint64) DepositTransferSeen {
		s := transfer(tx, "ETH", "2000", 18, "0xb"+tx)
		s.BlockNumber = block
		return s
	}
	for name, c := range map[string]struct {
		dropped bool
		seen    DepositTransferSeen
		want    int // events
	}{
		"ETH mined before the balance's block": {false, eth("0xA", 8), 0},
		"ETH mined in the balance's block":     {false, eth("0xA", 9), 0},
		"ETH mined after it":                   {false, eth("0xA", 10), 2},
		"the balance credit dropped":           {true, eth("0xA", 8), 2},
		"a token transfer before it":           {false, transfer("0xT", "USDC", "2000", 6, "0xbT"), 2},
	} {
		s := depositReceipt()
		s, _ = observe(t, s, DepositObservation{Transfer: transfer("0xP", "ETH", "1000", 18, "0xbP"), Confirmed: true})
		b := balanceSeen(9, "4000")
		s, _ = observe(t, s, DepositObservation{Transfer: b})
		if c.dropped {
			s, _ = observe(t, s, DepositObservation{Transfer: b, Dropped: true})
		}
		if _, evs := observe(t, s, DepositObservation{Transfer: c.seen, Confirmed: true}); len(evs) != c.want {
			t.Errorf("%s: %d events %+v, want %d", name, len(evs), evs, c.want)
		}
	}
	// A transfer seen before the balance credit was read is still confirmed at its depth.
	s := depositReceipt()
	s, _ = observe(t, s, DepositObservation{Transfer: eth("0xA", 8)})
	s, _ = observe(t, s, DepositObservation{Transfer: balanceSeen(9, "4000")})
	if _, evs := observe(t, s, DepositObservation{Transfer: eth("0xA", 8), Confirmed: true}); len(evs) != 1 {
		t.Errorf("a transfer credited before the balance: %d events at its depth, want its confirmation", len(evs))
	}
}

// TestUnsweptBalanceCreditInTheSweepsOwnBlock (stop 71): a balance credit is ETH the deposit held
// at the end of its block, so it is after every sweep in that block: unswept however much dust the
// sweep moved (before, it counted by the difference, and 300 wei credited after a sweep that had
// moved 500 wei of dust looked swept). One in a block before the sweep's was moved by it.
func TestUnsweptBalanceCreditInTheSweepsOwnBlock(t *testing.T) {
	t.Parallel()
	at := func(i int) *int { return &i }
	sweep := DepositSwept{TransactionHash: "0xS1", Token: "ETH", AmountUnits: "1500", BlockNumber: 9, LogIndex: at(5), TxIndex: at(3)}
	for name, c := range map[string]struct {
		block uint64
		want  map[string]string
	}{
		"in the sweep's block": {9, map[string]string{"ETH": "300"}},
		"in a block before it": {8, map[string]string{}},
		"in a block after it":  {10, map[string]string{"ETH": "300"}},
	} {
		s := depositReceipt()
		s, _ = observe(t, s, DepositObservation{Transfer: transfer("0xP", "ETH", "1000", 18, "0xbP"), Confirmed: true})
		s, _ = observe(t, s, DepositObservation{Transfer: balanceSeen(c.block, "300"), Confirmed: true})
		evs, err := RecordSweeps(s, []DepositSwept{sweep})
		if err != nil || len(evs) != 1 {
			t.Fatalf("%s: RecordSweeps = %v, %v", name, evs, err)
		}
		s = Evolve(s, evs[0])
		got := map[string]string{}
		for token, n := range s.Unswept() {
			got[token] = n.String()
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("%s: unswept %v, want %v", name, got, c.want)
		}
	}
}

// TestDroppedETHMinedAgainByABalanceReadIsNotCreditedAgain (stop 72): an ETH transfer credited,
// then dropped (its block left the chain), is not among the credits a balance read subtracts, so a
// balance credit read while it is dropped holds it when its transaction was mined again at or
// before the balance's block: seen again there it adds nothing. Dropped only after the read, mined
// again after the balance's block, with the balance credit dropped, or a token transfer: recorded
// as before.
func TestDroppedETHMinedAgainByABalanceReadIsNotCreditedAgain(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		token       string
		dropAfter   bool   // dropped after the balance read, not before
		again       uint64 // the block it is mined again in
		dropBalance bool
		want        int // events of the transfer seen again, confirmed
	}{
		"dropped, balance read, mined again before its block": {"ETH", false, 7, false, 0},
		"mined again in the balance's block":                  {"ETH", false, 9, false, 0},
		"mined again after the balance's block":               {"ETH", false, 10, false, 2},
		"dropped after the balance read":                      {"ETH", true, 7, false, 2},
		"the balance credit dropped":                          {"ETH", false, 7, true, 2},
		"a token transfer":                                    {"USDC", false, 7, false, 2},
	} {
		s := depositReceipt()
		s = Evolve(s, TokenQuoted{Token: "ETH", Amount: "0.005", At: 2})
		dec := uint8(18)
		if c.token != "ETH" {
			dec = 6
		}
		seen := transfer("0xA", c.token, "2000", dec, "0xb5")
		s, _ = observe(t, s, DepositObservation{Transfer: seen})
		drop := DepositObservation{Transfer: seen, Dropped: true}
		if !c.dropAfter {
			s, _ = observe(t, s, drop)
		}
		b := balanceSeen(9, "3000") // 2000 of the transfer mined again, 1000 a contract sent
		s, _ = observe(t, s, DepositObservation{Transfer: b})
		if c.dropAfter {
			s, _ = observe(t, s, drop)
		}
		if c.dropBalance {
			s, _ = observe(t, s, DepositObservation{Transfer: b, Dropped: true})
		}
		again := seen
		again.BlockNumber, again.BlockHash = c.again, "0xagain"
		if _, evs := observe(t, s, DepositObservation{Transfer: again, Confirmed: true}); len(evs) != c.want {
			t.Errorf("%s: %d events %+v, want %d", name, len(evs), evs, c.want)
		}
	}
}
