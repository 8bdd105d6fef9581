package receipt

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const (
	hashA = "0xaaaa000000000000000000000000000000000000000000000000000000000000"
	hashB = "0xbbbb000000000000000000000000000000000000000000000000000000000000"
)

// paidOnChain is a 10.00 USD receipt paid by a 10 USDC transfer from 0xc0ffee at its deposit.
func paidOnChain(t *testing.T) State {
	t.Helper()
	s := generated()
	s.Receipt.DepositAddress = "0xdeposit"
	return apply(t, s, []Event{
		DepositTransferSeen{TransactionHash: "0xpay", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", Sender: "0xC0FFEE", Token: "USDC", AmountUnits: "10000000", Decimals: 6, At: 3},
		DepositTransferConfirmed{TransactionHash: "0xpay", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", At: 4},
		PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xpay", Token: "USDC", VerifiedBy: VerifiedByChain, Method: MethodDeposit, At: 4},
	}, nil)
}

func paidByProcessor(t *testing.T) State {
	t.Helper()
	return apply(t, generated(), []Event{AttemptStarted{AttemptID: "a", Kind: "onramp"}, PaymentConfirmed{AttemptID: "a", VerifiedBy: "processor", At: 4}}, nil)
}

func verified(hash string) RefundProcessed {
	return RefundProcessed{TransactionHash: hash, Token: "USDC", AmountUnits: "4000000", Decimals: 6, Recipient: "0xc0ffee", BlockNumber: 9, BlockHash: "0xb9", At: 30}
}

// TestRefundClaims covers the refund rules of refund.go step by step.
func TestRefundClaims(t *testing.T) {
	t.Parallel()
	type step struct {
		decide  func(State) ([]Event, error)
		status  Status
		want    string // the refund record's state of hashA after the step ("": none)
		refund  int64  // RefundedCents after
		request int64  // RequestedCents after
		err     error
	}
	order := func(cents int64, hash string) func(State) ([]Event, error) {
		return func(s State) ([]Event, error) {
			return RequestRefund(s, RefundOrder{AmountCents: cents, Reason: "r", TransactionHash: hash, By: "m", At: 20})
		}
	}
	process := func(s State) ([]Event, error) { return ProcessRefund(s, verified(hashA)) }
	refuse := func(s State) ([]Event, error) { return RefuseRefund(s, hashA, "no transfer to a payer", 31) }
	revert := func(s State) ([]Event, error) { return RevertRefund(s, hashA, 40) }
	cases := []struct {
		name  string
		from  func(*testing.T) State
		steps []step
	}{
		{"a hash on a receipt paid on chain is a claim, processed only on the chain's word", paidOnChain, []step{
			{decide: order(400, hashA), status: StatusRefundRequested, want: RefundStateClaimed, request: 400},
			{decide: process, status: StatusPaid, want: RefundStateProcessed, refund: 400},
			{decide: process, status: StatusPaid, want: RefundStateProcessed, refund: 400}, // once
		}},
		{"a refused claim counts nothing", paidOnChain, []step{
			{decide: order(0, hashA), status: StatusRefundRequested, want: RefundStateClaimed, request: 1000},
			{decide: refuse, status: StatusPaid, want: "", request: 0},
			{decide: process, status: StatusPaid, err: ErrState},
		}},
		{"the whole amount refunds the receipt; a reorg takes it back to a claim", paidOnChain, []step{
			{decide: order(0, hashA), status: StatusRefundRequested, want: RefundStateClaimed, request: 1000},
			{decide: process, status: StatusRefunded, want: RefundStateProcessed, refund: 1000},
			{decide: revert, status: StatusRefundRequested, want: RefundStateClaimed, request: 1000},
			{decide: process, status: StatusRefunded, want: RefundStateProcessed, refund: 1000},
		}},
		{"a hash counted on the receipt is refused", paidOnChain, []step{
			{decide: order(100, hashA), status: StatusRefundRequested, want: RefundStateClaimed, request: 100},
			{decide: order(100, hashA), status: StatusRefundRequested, want: RefundStateClaimed, request: 100, err: ErrRefundHashUsed},
		}},
		{"a claim covers an open request and gives it back when refused", paidOnChain, []step{
			{decide: order(300, ""), status: StatusRefundRequested, request: 300},
			{decide: order(500, hashA), status: StatusRefundRequested, want: RefundStateClaimed, request: 500},
			{decide: refuse, status: StatusRefundRequested, request: 300},
		}},
		// Stop 60: the revert used to reset CoversCents, so the refusal took the whole claim off
		// the requested amount and the request of 300 was lost (paid, requested 0).
		{"a claim processed, reorged back, then refused gives the covered request back", paidOnChain, []step{
			{decide: order(300, ""), status: StatusRefundRequested, request: 300},
			{decide: order(500, hashA), status: StatusRefundRequested, want: RefundStateClaimed, request: 500},
			{decide: process, status: StatusPaid, want: RefundStateProcessed, refund: 500},
			{decide: revert, status: StatusRefundRequested, want: RefundStateClaimed, request: 500},
			{decide: refuse, status: StatusRefundRequested, request: 300},
		}},
		{"over-refund", paidOnChain, []step{
			{decide: order(1001, hashA), status: StatusPaid, err: ErrAmount},
		}},
		{"an onramp receipt keeps the merchant's word", paidByProcessor, []step{
			{decide: order(400, hashA), status: StatusPaid, want: RefundStateProcessed, refund: 400},
			{decide: order(100, hashA), status: StatusPaid, want: RefundStateProcessed, refund: 400, err: ErrRefundHashUsed},
			{decide: revert, status: StatusPaid, want: RefundStateProcessed, refund: 400}, // no chain proof to take back
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.from(t)
			for i, st := range c.steps {
				evs, err := st.decide(s)
				if !errors.Is(err, st.err) {
					t.Fatalf("step %d: err %v, want %v", i, err, st.err)
				}
				for _, e := range evs {
					s = Evolve(s, e)
				}
				r, _ := s.CountedRefund(hashA)
				if s.Status != st.status || r.State != st.want || int64(s.RefundedCents) != st.refund || int64(s.RequestedCents) != st.request {
					t.Fatalf("step %d: %s %q refunded %d requested %d; want %s %q %d %d", i, s.Status, r.State, s.RefundedCents, s.RequestedCents,
						st.status, st.want, st.refund, st.request)
				}
			}
		})
	}
}

func TestRefundProofAndRecord(t *testing.T) {
	t.Parallel()
	s := paidOnChain(t)
	s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 400, Reason: "r", TransactionHash: hashA, RefundTo: "0xd00d", By: "m", At: 20}))
	s = then(t, s)(ProcessRefund(s, verified(hashA)))
	r, _ := s.CountedRefund(hashA)
	if r.Proof != ProofChain || r.Token != "USDC" || r.AmountUnits != "4000000" || r.Recipient != "0xc0ffee" || r.RefundTo != "0xd00d" || r.BlockNumber != 9 {
		t.Fatalf("record %+v", r)
	}
	p := paidByProcessor(t)
	p = then(t, p)(Refund(p, 100, "r", hashB, "m", 20))
	if r, _ := p.CountedRefund(hashB); r.Proof != ProofMerchant {
		t.Fatalf("onramp record %+v", r)
	}
}

func TestRefundUnitsAtThePaidRate(t *testing.T) {
	t.Parallel()
	s := paidOnChain(t)
	if got := s.RefundRecipients(); !reflect.DeepEqual(got, []string{"0xc0ffee"}) {
		t.Fatalf("recipients %v", got)
	}
	if got := s.PaidTokens(); !reflect.DeepEqual(got, []string{"USDC"}) {
		t.Fatalf("tokens %v", got)
	}
	eth := Evolve(s, TokenQuoted{Token: "ETH", Amount: "0.00400000", TokenUSDPrice: "2500", AmountUSD: "10.00", At: 2})
	cases := []struct {
		name  string
		s     State
		cents int64
		token string
		dec   uint8
		want  string
		err   error
	}{
		{"stable one to one", s, 500, "USDC", 6, "5000000", nil},
		{"another stable", s, 1, "USDT", 6, "10000", nil},
		{"ETH at the quote paid", eth, 500, "ETH", 18, "2000000000000000", nil},
		{"no quote", s, 500, "ETH", 18, "", ErrNoQuote},
		{"nothing", s, 0, "USDC", 6, "", ErrAmount},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.s.RefundUnits(c.cents, c.token, c.dec)
			if !errors.Is(err, c.err) || err == nil && got.String() != c.want {
				t.Fatalf("%v %v, want %s %v", got, err, c.want, c.err)
			}
		})
	}
}

func TestRefundEventsDecode(t *testing.T) {
	t.Parallel()
	for _, e := range []Event{RefundRefused{TransactionHash: hashA, AmountCents: 1, Reason: "x", At: 1}, RefundReverted{TransactionHash: hashA, AmountCents: 1, BlockNumber: 2, At: 3}} {
		data, _ := json.Marshal(e)
		got, err := Decode(TypeOf(e), data)
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Fatalf("%s: %+v %v", TypeOf(e), got, err)
		}
	}
}

// TestJudgeRefund: what a transaction must show for a claim of 4.00 (USDC paid by 0xc0ffee).
func TestJudgeRefund(t *testing.T) {
	t.Parallel()
	s := paidOnChain(t)
	s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 400, Reason: "r", TransactionHash: hashA, By: "m", At: 20}))
	named := then(t, paidOnChain(t))(RequestRefund(paidOnChain(t), RefundOrder{AmountCents: 400, Reason: "r", TransactionHash: hashA, RefundTo: "0xd00d", By: "m", At: 20}))
	usdc := func(to, units string) ChainTransfer {
		return ChainTransfer{Token: "USDC", Decimals: 6, From: "0xmerchant", To: to, AmountUnits: units}
	}
	cases := []struct {
		name      string
		s         State
		ok        bool
		transfers []ChainTransfer
		reason    string
	}{
		{"the refund to the payer", s, true, []ChainTransfer{usdc("0xc0ffee", "4000000")}, ""},
		{"two transfers to the payer add up", s, true, []ChainTransfer{usdc("0xc0ffee", "1000000"), usdc("0xc0ffee", "3000000")}, ""},
		{"to the address the merchant named", named, true, []ChainTransfer{usdc("0xd00d", "4000000")}, ""},
		{"short", s, false, []ChainTransfer{usdc("0xc0ffee", "3999999")}, "less than the refund's 4000000"},
		{"to someone else", s, false, []ChainTransfer{usdc("0xbad", "4000000")}, "sends no USDC to a payer of the receipt (0xc0ffee)"},
		{"another token", s, false, []ChainTransfer{{Token: "USDT", Decimals: 6, To: "0xc0ffee", AmountUnits: "4000000"}}, "sends no USDC"},
		{"nothing moved", s, false, nil, "sends no USDC"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, reason, ok := JudgeRefund(c.s, RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: c.transfers, BlockNumber: 9, BlockHash: "0xb9", At: 30})
			if ok != c.ok || !strings.Contains(reason, c.reason) {
				t.Fatalf("ok %v reason %q, want %v %q", ok, reason, c.ok, c.reason)
			}
			if ok && (p.Token != "USDC" || p.BlockNumber != 9 || p.TransactionHash != hashA) {
				t.Fatalf("processed %+v", p)
			}
		})
	}
	if _, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashA, Transfers: []ChainTransfer{usdc("0xc0ffee", "4000000")}}); ok || !strings.Contains(reason, "reverted") {
		t.Fatalf("reverted: %v %q", ok, reason)
	}
	if _, _, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashB, Succeeded: true, Transfers: []ChainTransfer{usdc("0xc0ffee", "4000000")}}); ok {
		t.Fatal("a hash no refund claims was judged")
	}
}

func TestRefundTotalUnitsAndExcess(t *testing.T) {
	t.Parallel()
	s := paidOnChain(t)
	if u, err := s.RefundTotalUnits("USDC", 6); err != nil || u.String() != "10000000" {
		t.Fatalf("total units %v %v", u, err)
	}
	if got := s.ExcessCents(); got != 0 {
		t.Fatalf("excess of an exact payment %d", got)
	}
	over := apply(t, s, []Event{
		DepositTransferSeen{TransactionHash: "0xmore", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", Sender: "0xc0ffee", Token: "USDC", AmountUnits: "2505000", Decimals: 6, At: 5},
		DepositTransferConfirmed{TransactionHash: "0xmore", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", At: 6},
	}, nil)
	if got := over.ExcessCents(); got != 250 {
		t.Fatalf("excess %d, want 250 (2.505 USDC over, rounded down)", got)
	}
}

// failedWithFunds is a 10.00 USD receipt whose window ended after 4 USDC of it arrived.
func failedWithFunds(t *testing.T) State { return failedWatchedUntil(t, 6) }

// failedWatchedUntil is failedWithFunds watched for late payments until monitorUntil.
func failedWatchedUntil(t *testing.T, monitorUntil int64) State {
	t.Helper()
	s := generated()
	s.Receipt.DepositAddress = "0xdeposit"
	return apply(t, s, []Event{
		DepositTransferSeen{TransactionHash: "0xpart", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", Sender: "0xc0ffee", Token: "USDC", AmountUnits: "4000000", Decimals: 6, At: 3},
		DepositTransferConfirmed{TransactionHash: "0xpart", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", At: 4},
		PaymentWindowExpired{ExpiresAt: 5, MonitorUntil: monitorUntil, Code: "PORTAL_SESSION_EXPIRED", At: 5},
	}, nil)
}

// Funds that paid nothing are refunded with a hash, up to what they are worth; the receipt stays
// failed.
func TestRefundOfFundsThatPaidNothing(t *testing.T) {
	t.Parallel()
	s := failedWithFunds(t)
	if s.Status != StatusFailed || s.ReceivedCents() != 400 || s.RefundableCents() != 400 {
		t.Fatalf("setup: %s received %d", s.Status, s.ReceivedCents())
	}
	order := func(cents int64, hash string) RefundOrder {
		return RefundOrder{AmountCents: cents, Reason: "late", TransactionHash: hash, By: "m", At: 20}
	}
	if _, err := RequestRefund(s, order(400, "")); !errors.Is(err, ErrState) {
		t.Fatalf("without a hash: %v", err)
	}
	if _, err := RequestRefund(s, order(401, hashA)); !errors.Is(err, ErrAmount) {
		t.Fatalf("more than received: %v", err)
	}
	if _, err := RequestRefund(generated(), order(1, hashA)); !errors.Is(err, ErrState) {
		t.Fatalf("nothing received: %v", err)
	}
	s = then(t, s)(RequestRefund(s, order(0, hashA)))
	if r, _ := s.CountedRefund(hashA); s.Status != StatusFailed || r.State != RefundStateClaimed || r.AmountCents != 400 || s.RefundableCents() != 0 {
		t.Fatalf("claim: %s %+v", s.Status, r)
	}
	p, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashA, Succeeded: true, BlockNumber: 9, BlockHash: "0xb9", At: 30,
		Transfers: []ChainTransfer{{Token: "USDC", Decimals: 6, To: "0xc0ffee", AmountUnits: "4000000"}}})
	if !ok {
		t.Fatalf("judged: %s", reason)
	}
	s = then(t, s)(ProcessRefund(s, p))
	if s.Status != StatusFailed || s.RefundedCents != 400 || s.RequestedCents != 0 {
		t.Fatalf("processed: %s refunded %d requested %d", s.Status, s.RefundedCents, s.RequestedCents)
	}
}

// Funds of a failed receipt refunded (claimed or processed) no longer count toward its payment:
// a late transfer pays it only with what the customer kept; the page asks for the refunded part
// again. (They used to count: 4 USD refunded plus 6 USD late paid a 10 USD receipt.)
func TestRefundedFundsPayNothing(t *testing.T) {
	t.Parallel()
	failed := func() State { return failedWatchedUntil(t, 1_000_000) } // 4 of 10 USDC, late payments watched
	claimed := func() State {
		s := failed()
		return then(t, s)(RequestRefund(s, RefundOrder{Reason: "late", TransactionHash: hashA, By: "m", At: 20}))
	}
	processed := func() State {
		s := claimed()
		p, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashA, Succeeded: true, BlockNumber: 9, BlockHash: "0xb9", At: 30,
			Transfers: []ChainTransfer{{Token: "USDC", Decimals: 6, To: "0xc0ffee", AmountUnits: "4000000"}}})
		if !ok {
			t.Fatalf("judged: %s", reason)
		}
		return then(t, s)(ProcessRefund(s, p))
	}
	refused := func() State {
		s := claimed()
		return then(t, s)(RefuseRefund(s, hashA, "not on chain", 30))
	}
	late := func(tx, units string) DepositObservation {
		return DepositObservation{Transfer: DepositTransferSeen{TransactionHash: tx, LogIndex: 0, BlockNumber: 8, BlockHash: "0xb8" + tx,
			Sender: "0xc0ffee", Token: "USDC", AmountUnits: units, Decimals: 6}, Confirmed: true, At: 40}
	}
	refusedAfter := func(o DepositObservation) State {
		s, _ := observe(t, claimed(), o)
		if s.Status != StatusFailed {
			t.Fatalf("setup: %s", s.Status)
		}
		s = then(t, s)(RefuseRefund(s, hashA, "not on chain", 50))
		if s.Payment == nil || !s.Payment.PaidLate || !strings.EqualFold(s.Payment.TransactionHash, o.Transfer.TransactionHash) {
			t.Fatalf("payment %+v", s.Payment)
		}
		return s
	}
	for _, c := range []struct {
		name    string
		s       State
		late    []DepositObservation
		paid    bool
		dueUSDC string // what the page asks for after the late transfers (USDC base units)
	}{
		{"no refund: the late 6 completes the 4", failed(), []DepositObservation{late("0x6", "6000000")}, true, "0"},
		{"claimed refund: the late 6 does not", claimed(), []DepositObservation{late("0x6", "6000000")}, false, "4000000"},
		{"processed refund: the late 6 does not", processed(), []DepositObservation{late("0x6", "6000000")}, false, "4000000"},
		{"processed refund: the late 6 and 4 more do", processed(), []DepositObservation{late("0x6", "6000000"), late("0x4", "4000000")}, true, "0"},
		{"refund claim refused: the funds count again", refused(), []DepositObservation{late("0x6", "6000000")}, true, "0"},
		// Stop 60: refused after the late 6 arrived, the claim stops counting and the receipt is
		// paid (it stayed failed though covered: nothing asked again).
		{"refund claim refused after the late 6: paid then", refusedAfter(late("0x6", "6000000")), nil, true, "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			for _, o := range c.late {
				s, _ = observe(t, s, o)
			}
			if (s.Status == StatusPaid) != c.paid {
				t.Fatalf("status %s, want paid %v", s.Status, c.paid)
			}
			if !c.paid {
				req, err := s.requiredIn("USDC")
				if err != nil {
					t.Fatal(err)
				}
				if due := s.DueUnits(req, 6).String(); due != c.dueUSDC {
					t.Fatalf("due %s USDC units, want %s", due, c.dueUSDC)
				}
			}
		})
	}
}
