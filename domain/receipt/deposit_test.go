package receipt

import (
	"testing"
)

// depositReceipt is a 12.31 USD receipt with a deposit address.
func depositReceipt() State {
	return Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Currency: "USD", Total: 1231,
		LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1231}}, DepositAddress: "0xD", DepositSplit: "0xS", CreatedAt: 1})
}

func transfer(tx, token, units string, dec uint8, block string) DepositTransferSeen {
	li := 0
	if token == "ETH" {
		li = ETHLogIndex
	}
	return DepositTransferSeen{TransactionHash: tx, LogIndex: li, BlockNumber: 5, BlockHash: block, Sender: "0xB", Token: token,
		AmountUnits: units, Decimals: dec}
}

// observe applies ObserveDeposit's events and returns the state after them.
func observe(t *testing.T, s State, o DepositObservation) (State, []Event) {
	t.Helper()
	evs, err := ObserveDeposit(s, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s, evs
}

// The rules of deposit.go as a table: each case observes transfers in order and checks the
// status and amounts after them.
func TestObserveDeposit(t *testing.T) {
	t.Parallel()
	quoted := func(s State) State { return Evolve(s, TokenQuoted{Token: "ETH", Amount: "0.00500000", At: 2}) }
	usdc := func(tx, units string) DepositTransferSeen { return transfer(tx, "USDC", units, 6, "0xb1") }
	for _, c := range []struct {
		name              string
		prep              func(State) State
		obs               []DepositObservation
		status            Status
		required, receive string
		late              bool
	}{
		{"nothing seen", nil, nil, StatusGenerated, "12.31", "", false},
		{"seen: pending, nothing received yet", nil, []DepositObservation{{Transfer: usdc("0x1", "12310000")}}, StatusPending, "12.31", "0.00", false},
		{"confirmed exact: paid", nil, []DepositObservation{{Transfer: usdc("0x1", "12310000"), Confirmed: true}}, StatusPaid, "12.31", "12.31", false},
		{"underpaid stays pending", nil, []DepositObservation{{Transfer: usdc("0x1", "10000000"), Confirmed: true}}, StatusPending, "12.31", "10.00", false},
		{"underpaid then completed", nil, []DepositObservation{{Transfer: usdc("0x1", "10000000"), Confirmed: true},
			{Transfer: usdc("0x2", "2310000"), Confirmed: true}}, StatusPaid, "12.31", "12.31", false},
		{"overpaid: paid, more received", nil, []DepositObservation{{Transfer: usdc("0x1", "20000000"), Confirmed: true}}, StatusPaid, "12.31", "20.00", false},
		{"USDT pays a USDC request", nil, []DepositObservation{{Transfer: transfer("0x1", "USDT", "12310000", 6, "0xb1"), Confirmed: true}}, StatusPaid, "12.31", "12.31", false},
		{"ETH by the quote", quoted, []DepositObservation{{Transfer: transfer("0x1", "ETH", "5000000000000000", 18, "0xb1"), Confirmed: true}}, StatusPaid, "0.005", "0.005", false},
		{"ETH without a quote counts nothing", nil, []DepositObservation{{Transfer: transfer("0x1", "ETH", "5000000000000000", 18, "0xb1"), Confirmed: true}}, StatusPending, "12.31", "0.00", false},
		{"dropped before the depth stops counting", nil, []DepositObservation{{Transfer: usdc("0x1", "12310000")},
			{Transfer: usdc("0x1", "12310000"), Dropped: true}, {Transfer: usdc("0x2", "1"), Confirmed: true}}, StatusPending, "12.31", "0.000001", false},
		{"seen again in another block counts there", nil, []DepositObservation{{Transfer: usdc("0x1", "12310000")},
			{Transfer: usdc("0x1", "12310000"), Dropped: true}, {Transfer: transfer("0x1", "USDC", "12310000", 6, "0xb2"), Confirmed: true}}, StatusPaid, "12.31", "12.31", false},
		{"failed then a confirmed payment: paid late", func(s State) State {
			return Evolve(s, PaymentWindowExpired{Code: "PORTAL_SESSION_EXPIRED", MonitorUntil: 1 << 50, At: 3})
		},
			[]DepositObservation{{Transfer: usdc("0x1", "12310000"), Confirmed: true}}, StatusPaid, "12.31", "12.31", true},
		{"failed: a seen transfer does not move it", func(s State) State { return Evolve(s, PaymentFailed{Code: "PORTAL_SESSION_EXPIRED", At: 3}) },
			[]DepositObservation{{Transfer: usdc("0x1", "12310000")}}, StatusFailed, "12.31", "0.00", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := depositReceipt()
			if c.prep != nil {
				s = c.prep(s)
			}
			for _, o := range c.obs {
				s, _ = observe(t, s, o)
			}
			if s.Status != c.status || s.AmountRequired() != c.required || s.AmountReceived() != c.receive || s.PaidLate() != c.late {
				t.Fatalf("status %s required %q received %q late %v, want %s %q %q %v", s.Status, s.AmountRequired(), s.AmountReceived(),
					s.PaidLate(), c.status, c.required, c.receive, c.late)
			}
		})
	}
}

// A transfer is credited once: the same observation again adds nothing, also once paid.
func TestObserveDepositIsIdempotent(t *testing.T) {
	t.Parallel()
	o := DepositObservation{Transfer: transfer("0xAB", "USDC", "12310000", 6, "0xb1"), Confirmed: true}
	s, evs := observe(t, depositReceipt(), o)
	if len(evs) != 3 {
		t.Fatalf("first observation: %d events, want seen, confirmed, paid", len(evs))
	}
	o.Transfer.TransactionHash = "0xab" // hashes compare without case
	if _, again := observe(t, s, o); len(again) != 0 {
		t.Fatalf("again: %v", again)
	}
	if len(s.Credits) != 1 || s.Payment.VerifiedBy != VerifiedByChain || s.TransactionHash() != "0xAB" {
		t.Fatalf("credits %v payment %+v", s.Credits, s.Payment)
	}
}

func TestObserveDepositNeedsADepositAddress(t *testing.T) {
	t.Parallel()
	s := Evolve(State{}, Generated{ReceiptID: "r", Total: 1, LineItems: []LineItem{{Amount: 1}}})
	if _, err := ObserveDeposit(s, DepositObservation{Transfer: transfer("0x1", "USDC", "1", 6, "0xb")}); err == nil {
		t.Fatal("a receipt without a deposit address took a transfer")
	}
}
