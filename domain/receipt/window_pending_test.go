package receipt

import "testing"

// paidIn is a transfer of units USDC to the windowed receipt's deposit, mined at blockTime in
// block hash.
func paidIn(tx, units, block string, blockTime int64) DepositTransferSeen {
	return DepositTransferSeen{TransactionHash: tx, LogIndex: 0, BlockNumber: 7, BlockHash: block, Sender: "0xbuyer", Token: "USDC",
		AmountUnits: units, Decimals: 6, BlockTime: blockTime}
}

// TestATransferMinedInTimeHoldsTheWindow: a receipt whose transfers mined at or before its
// window's end cover it is not expired while one of them waits for its confirmations (the
// customer paid in time: expired, the merchant was told failed before paid); transfers that do
// not cover it, one mined after the end, of unknown block time, or taken back by a reorg hold
// nothing, and no hold outlasts the late-payment watch.
func TestATransferMinedInTimeHoldsTheWindow(t *testing.T) {
	t.Parallel()
	base := windowed()
	base.Receipt.DepositAddress = "0xdeposit"
	seen := func(s State, tr DepositTransferSeen) State { return withEvents(t, s, tr) }
	inTime := paidIn("0xT", "10000000", "0xb7", winEnd-12_000)
	wallet := withEvents(t, base, AttemptStarted{AttemptID: "w", Kind: "wallet", At: 2},
		PaymentSubmitted{AttemptID: "w", Source: "wallet", TransactionHash: "0xT", At: winEnd - 5_000})
	declined := withEvents(t, base, AttemptStarted{AttemptID: "c", Kind: "onramp", At: 2}, fail("c"))
	part := withEvents(t, seen(base, paidIn("0xA", "4000000", "0xb6", winEnd-60_000)),
		DepositTransferConfirmed{TransactionHash: "0xA", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", At: winEnd - 30_000})
	cases := []struct {
		name   string
		s      State
		at     int64
		expire bool
	}{
		{"mined before the end, unconfirmed: held", seen(base, inTime), winEnd + 600_000, false},
		{"mined at the end: held", seen(base, paidIn("0xT", "10000000", "0xb7", winEnd)), winEnd, false},
		{"a wallet payment (hint) whose transfer is seen: held", seen(wallet, inTime), winEnd + 1, false},
		{"failed by a card, then paid in time by chain: held", seen(declined, inTime), winEnd + 1, false},
		{"too small, unconfirmed: expires (underpaid at the end)", seen(base, paidIn("0xT", "9000000", "0xb7", winEnd-1)), winEnd + 1, true},
		{"the rest of a confirmed part, unconfirmed: held", seen(part, paidIn("0xT", "6000000", "0xb7", winEnd-1)), winEnd + 1, false},
		{"the rest mined after the end: expires", seen(part, paidIn("0xT", "6000000", "0xb7", winEnd+1)), winEnd + 2, true},
		{"a confirmed part mined after the end does not count", seen(withEvents(t, seen(base, paidIn("0xA", "4000000", "0xb8", winEnd+1)),
			DepositTransferConfirmed{TransactionHash: "0xA", LogIndex: 0, BlockNumber: 7, BlockHash: "0xb8", At: winEnd + 1}),
			paidIn("0xT", "6000000", "0xb7", winEnd-1)), winEnd + 2, true},
		{"held until the late-payment watch's end", seen(base, inTime), lateEnd, false},
		{"not beyond it", seen(base, inTime), lateEnd + 1, true},
		{"mined after the end: expires", seen(base, paidIn("0xT", "10000000", "0xb7", winEnd+1)), winEnd + 1, true},
		{"block time unknown: expires", seen(base, paidIn("0xT", "10000000", "0xb7", 0)), winEnd + 1, true},
		{"taken back by a reorg: expires", withEvents(t, seen(base, inTime),
			DepositTransferDropped{TransactionHash: "0xT", LogIndex: 0, BlockHash: "0xb7", At: winEnd}), winEnd + 1, true},
		{"mined again after the end: expires", seen(seen(base, inTime), paidIn("0xT", "10000000", "0xb9", winEnd+2_000)), winEnd + 3_000, true},
		{"confirmed in time, too small: expires", withEvents(t, seen(base, paidIn("0xT", "4000000", "0xb7", winEnd-1)),
			DepositTransferConfirmed{TransactionHash: "0xT", LogIndex: 0, BlockNumber: 7, BlockHash: "0xb7", At: winEnd + 1}), winEnd + 2, true},
		{"a wallet payment whose transfer is not seen yet: expires", wallet, winEnd + 1, true},
		{"before the end: nothing", seen(base, paidIn("0xT", "10000000", "0xb7", winEnd+5)), winEnd - 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := Expire(c.s, c.at, monitor)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(evs) == 1; got != c.expire || len(evs) > 1 {
				t.Fatalf("expired: %s, want %v", types(evs), c.expire)
			}
			if due := c.s.WindowDue(c.at); due != (c.expire && c.at <= lateEnd) {
				t.Fatalf("WindowDue %v", due)
			}
		})
	}
}

// TestAHeldReceiptIsPaidInTime: the held receipt's transfer, confirmed after the window's end,
// pays it with no expiry before and paidLate false; taken back by a reorg instead, the window
// expires it, and mined again after the end it pays it late.
func TestAHeldReceiptIsPaidInTime(t *testing.T) {
	t.Parallel()
	s := windowed()
	s.Receipt.DepositAddress = "0xdeposit"
	tr := paidIn("0xT", "10000000", "0xb7", winEnd-12_000)
	s, _ = observe(t, s, DepositObservation{Transfer: tr, At: winEnd - 10_000})
	if evs, _ := Expire(s, winEnd+30_000, monitor); len(evs) != 0 || s.Status != StatusPending {
		t.Fatalf("expired while its transfer waits: %s", types(evs))
	}
	paid, evs := observe(t, s, DepositObservation{Transfer: tr, Confirmed: true, At: winEnd + 40_000})
	if types(evs) != EventDepositTransferConfirmed+","+EventConfirmed || paid.Status != StatusPaid || paid.PaidLate() || paid.Expired() {
		t.Fatalf("confirmed: %s, %s late %v", types(evs), paid.Status, paid.PaidLate())
	}

	dropped, _ := observe(t, s, DepositObservation{Transfer: tr, Dropped: true, At: winEnd + 20_000})
	evs, err := Expire(dropped, winEnd+21_000, monitor)
	dropped = apply(t, dropped, evs, err)
	if !dropped.Expired() {
		t.Fatalf("a transfer taken back still held the window: %s", types(evs))
	}
	again := paidIn("0xT", "10000000", "0xb9", winEnd+30_000)
	late, evs := observe(t, dropped, DepositObservation{Transfer: again, Confirmed: true, At: winEnd + 60_000})
	if late.Status != StatusPaid || !late.PaidLate() {
		t.Fatalf("mined again after the end: %s, %s late %v", types(evs), late.Status, late.PaidLate())
	}
}
