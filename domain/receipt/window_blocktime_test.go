package receipt

import "testing"

// TestLateWatchIsJudgedByTheBlocksTime: a transfer mined within the late-payment watch pays the
// expired receipt late however long after the watch the service saw it (an outage, a stalled
// detector); one mined after the watch pays nothing. Judged by the time the service saw it, the
// customer who paid in time after a long outage held a failed receipt and a refund claim.
func TestLateWatchIsJudgedByTheBlocksTime(t *testing.T) {
	cases := []struct {
		name      string
		blockTime int64
		want      string
	}{
		{"mined within the watch, seen after it", lateEnd - 60_000, EventDepositTransferSeen + "," + EventDepositTransferConfirmed + "," + EventConfirmed},
		{"mined at the watch's end", lateEnd, EventDepositTransferSeen + "," + EventDepositTransferConfirmed + "," + EventConfirmed},
		{"mined after the watch", lateEnd + 1_000, EventDepositTransferSeen + "," + EventDepositTransferConfirmed + "," + EventPaymentIgnored},
		{"block time unknown (an older event): the time seen", 0, EventDepositTransferSeen + "," + EventDepositTransferConfirmed + "," + EventPaymentIgnored},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := windowed()
			s.Receipt.DepositAddress = "0xdeposit"
			s = expired(t, s)
			paid := DepositTransferSeen{TransactionHash: "0xP", LogIndex: 1, BlockNumber: 80, BlockHash: "0xb80", Sender: "0xbuyer",
				Token: "USDC", AmountUnits: "10000000", Decimals: 6, BlockTime: c.blockTime}
			s, evs := observe(t, s, DepositObservation{Transfer: paid, Confirmed: true, At: lateEnd + 3_600_000})
			if types(evs) != c.want {
				t.Fatalf("events %s, want %s", types(evs), c.want)
			}
			if c.want[len(c.want)-len(EventConfirmed):] != EventConfirmed {
				return
			}
			if p := evs[2].(PaymentConfirmed); !p.PaidLate || p.BlockTime != c.blockTime || s.Status != StatusPaid {
				t.Fatalf("paid late %v, block time %d, status %s", p.PaidLate, p.BlockTime, s.Status)
			}
		})
	}
}
