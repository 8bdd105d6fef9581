package receipt

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
)

// Stop 60: only money going back to the customer refunds a receipt. The customer's own transfers
// (the payment itself, a transfer to themselves, from one of their paying wallets to another),
// the deposit's and the split's never count, whatever refundTo names.
func TestRefundOnlyMoneyGoingBack(t *testing.T) {
	t.Parallel()
	base := paidOnChain(t)
	base.Receipt.DepositSplit = "0xsplit"
	claim := func(refundTo string) State {
		return then(t, base)(RequestRefund(base, RefundOrder{AmountCents: 400, Reason: "r", TransactionHash: hashA, RefundTo: refundTo, By: "m", At: 20}))
	}
	usdc := func(from, to string) ChainTransfer {
		return ChainTransfer{Token: "USDC", Decimals: 6, From: from, To: to, AmountUnits: "4000000"}
	}
	for _, c := range []struct {
		name     string
		refundTo string
		t        ChainTransfer
		ok       bool
	}{
		{"the merchant's refund to the payer", "", usdc("0xmerchant", "0xc0ffee"), true},
		{"an exchange's withdrawal for the merchant (any wallet may refund)", "", usdc("0xexchange", "0xc0ffee"), true},
		{"the customer's transfer to itself", "", usdc("0xc0ffee", "0xc0ffee"), false},
		{"the customer's transfer to the named refundTo", "0xd00d", usdc("0xC0FFEE", "0xd00d"), false},
		{"a transfer of the refundTo to itself", "0xd00d", usdc("0xd00d", "0xd00d"), false},
		{"the deposit's money to the payer", "", usdc("0xdeposit", "0xc0ffee"), false},
		{"the split's money to the payer", "", usdc("0xsplit", "0xc0ffee"), false},
		{"the merchant's refund to the named refundTo", "0xd00d", usdc("0xmerchant", "0xd00d"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, reason, ok := JudgeRefund(claim(c.refundTo), RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: []ChainTransfer{c.t}, BlockNumber: 9, BlockHash: "0xb9", At: 30})
			if ok != c.ok {
				t.Fatalf("ok %v (%s), want %v", ok, reason, c.ok)
			}
			if !ok && !strings.Contains(reason, "is not a refund") {
				t.Fatalf("reason %q does not say why", reason)
			}
		})
	}
}

// A wallet a payment hint named (an attempt's, unverified) is not a payer: a hint naming the
// merchant's wallet must not make the merchant's refunds unprovable.
func TestRefundFromAWalletAHintNamed(t *testing.T) {
	t.Parallel()
	base := paidOnChain(t)
	base.Attempts = maps.Clone(base.Attempts)
	if base.Attempts == nil {
		base.Attempts = map[string]Attempt{}
	}
	base.Attempts["hinted"] = Attempt{ID: "hinted", Kind: "wallet", BuyerWallet: "0xmerchant"}
	claimed := then(t, base)(RequestRefund(base, RefundOrder{AmountCents: 400, Reason: "r", TransactionHash: hashA, By: "m", At: 20}))
	refund := ChainTransfer{Token: "USDC", Decimals: 6, From: "0xmerchant", To: "0xc0ffee", AmountUnits: "4000000"}
	if _, reason, ok := JudgeRefund(claimed, RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: []ChainTransfer{refund}, BlockNumber: 9, BlockHash: "0xb9", At: 30}); !ok {
		t.Fatalf("the merchant's refund from a wallet a hint named: %s", reason)
	}
}

// Stop 60: a refund never names the receipt's own transaction, nor where the customer paid.
func TestRefundNamesNoPaymentOfTheReceipt(t *testing.T) {
	t.Parallel()
	s := paidOnChain(t)
	s.Receipt.DepositSplit = "0xSplit"
	for _, c := range []struct {
		name           string
		hash, refundTo string
	}{
		{"the payment's transaction", "0xPAY", ""},
		{"refundTo the deposit address", hashA, "0xdeposit"},
		{"refundTo the split", hashA, "0xsplit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := RequestRefund(s, RefundOrder{AmountCents: 100, Reason: "r", TransactionHash: c.hash, RefundTo: c.refundTo, By: "m", At: 20})
			if !errors.Is(err, ErrRefundTarget) || !errors.Is(err, ErrState) {
				t.Fatalf("err %v, want ErrRefundTarget", err)
			}
		})
	}
	f := failedWithFunds(t)
	if _, err := RequestRefund(f, RefundOrder{AmountCents: 100, Reason: "r", TransactionHash: "0xpart", By: "m", At: 20}); !errors.Is(err, ErrRefundTarget) {
		t.Fatalf("a failed receipt's credited transfer: %v", err)
	}
	u, ref := paidWithUnknown(t)
	if _, err := RequestRefund(u, RefundOrder{Reason: "r", TransactionHash: "0xunk", Unknown: &ref, By: "m", At: 20}); !errors.Is(err, ErrRefundTarget) {
		t.Fatalf("the unknown transfer's own transaction: %v", err)
	}
	if _, err := RequestRefund(u, RefundOrder{Reason: "r", TransactionHash: hashA, RefundTo: "0xDEPOSIT", Unknown: &ref, By: "m", At: 20}); !errors.Is(err, ErrRefundTarget) {
		t.Fatalf("an unknown transfer's refund to the deposit: %v", err)
	}
}

// Stop 60: a receipt holds at most MaxOpenRefundClaims claims waiting for the chain's verdict;
// a verdict makes room again.
func TestRefundOpenClaimsBounded(t *testing.T) {
	t.Parallel()
	s := paidOnChain(t)
	hash := func(i int) string { return fmt.Sprintf("0x%064x", i+1) }
	for i := range MaxOpenRefundClaims {
		s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 1, Reason: "r", TransactionHash: hash(i), By: "m", At: 20}))
	}
	if _, err := RequestRefund(s, RefundOrder{AmountCents: 1, Reason: "r", TransactionHash: hash(99), By: "m", At: 20}); !errors.Is(err, ErrRefundClaimsOpen) || !errors.Is(err, ErrState) {
		t.Fatalf("one more open claim: %v", err)
	}
	s = then(t, s)(RefuseRefund(s, hash(0), "not on chain", 30))
	if _, err := RequestRefund(s, RefundOrder{AmountCents: 1, Reason: "r", TransactionHash: hash(99), By: "m", At: 31}); err != nil {
		t.Fatalf("after a verdict: %v", err)
	}
}

// Stop 60: an unknown transfer whose recorded amount does not parse proves no refund (it used to
// accept any positive amount).
func TestRefundOfAnUnknownAmountIsNotProven(t *testing.T) {
	t.Parallel()
	s, ref := paidWithUnknown(t)
	s.UnknownTokens[0].AmountUnits = "five"
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "r", TransactionHash: hashA, Unknown: &ref, By: "m", At: 20}))
	_, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashA, Succeeded: true, BlockNumber: 9, At: 30,
		Transfers: []ChainTransfer{{Contract: "0xdai", From: "0xmerchant", To: "0xcust", AmountUnits: "1"}}})
	if ok || !strings.Contains(reason, "not known") {
		t.Fatalf("ok %v %q", ok, reason)
	}
}

// Stop 60: a refusal pays a failed receipt only with transfers of its late-payment watch: one
// confirmed after it pays nothing, refusal or not.
func TestRefundRefusedPaysNothingAfterTheWatch(t *testing.T) {
	t.Parallel()
	s := failedWithFunds(t) // 4 of 10 USDC; the watch ended at 6
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "r", TransactionHash: hashA, By: "m", At: 20}))
	s, _ = observe(t, s, DepositObservation{Transfer: DepositTransferSeen{TransactionHash: "0x6", LogIndex: 0, BlockNumber: 8, BlockHash: "0xb8",
		Sender: "0xc0ffee", Token: "USDC", AmountUnits: "6000000", Decimals: 6}, Confirmed: true, At: 40})
	s = then(t, s)(RefuseRefund(s, hashA, "not on chain", 50))
	if s.Status != StatusFailed || s.Payment != nil {
		t.Fatalf("%s %+v", s.Status, s.Payment)
	}
}

// Stop 64: a transaction's transfers are netted per party: what it sends the customer and
// takes back from them in the same transaction (a transferFrom the customer's allowance lets
// anyone make) is no refund. Counting only what arrived recorded a refund the customer never
// kept.
func TestRefundNetsWhatTheTransactionTakesBack(t *testing.T) {
	t.Parallel()
	base := paidOnChain(t)
	usdc := func(from, to, units string) ChainTransfer {
		return ChainTransfer{Token: "USDC", Decimals: 6, From: from, To: to, AmountUnits: units}
	}
	for _, c := range []struct {
		name      string
		refundTo  string
		transfers []ChainTransfer
		units     string // "": refused
	}{
		{"sent and pulled back", "", []ChainTransfer{usdc("0xmerchant", "0xc0ffee", "4000000"), usdc("0xC0FFEE", "0xmerchant", "4000000")}, ""},
		{"sent and pulled back to a third address", "", []ChainTransfer{usdc("0xmerchant", "0xc0ffee", "4000000"), usdc("0xc0ffee", "0xthief", "4000000")}, ""},
		{"a part pulled back leaves less than the refund", "", []ChainTransfer{usdc("0xmerchant", "0xc0ffee", "4000000"), usdc("0xc0ffee", "0xthief", "1")}, ""},
		{"pulled back from the refundTo", "0xd00d", []ChainTransfer{usdc("0xmerchant", "0xd00d", "4000000"), usdc("0xd00d", "0xthief", "4000000")}, ""},
		{"more sent than pulled back", "", []ChainTransfer{usdc("0xmerchant", "0xc0ffee", "5000000"), usdc("0xc0ffee", "0xthief", "1000000")}, "4000000"},
		{"moved on to the refundTo stays the customer's", "0xd00d", []ChainTransfer{usdc("0xmerchant", "0xc0ffee", "4000000"), usdc("0xc0ffee", "0xd00d", "4000000")}, "4000000"},
		{"another token taken is not netted", "", []ChainTransfer{usdc("0xmerchant", "0xc0ffee", "4000000"),
			{Token: "USDT", Decimals: 6, From: "0xc0ffee", To: "0xthief", AmountUnits: "4000000"}}, "4000000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			claimed := then(t, base)(RequestRefund(base, RefundOrder{AmountCents: 400, Reason: "r", TransactionHash: hashA, RefundTo: c.refundTo, By: "m", At: 20}))
			p, reason, ok := JudgeRefund(claimed, RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: c.transfers, BlockNumber: 9, BlockHash: "0xb9", At: 30})
			if ok != (c.units != "") || ok && p.AmountUnits != c.units {
				t.Fatalf("ok %v units %s (%s), want %q", ok, p.AmountUnits, reason, c.units)
			}
		})
	}
	s, ref := paidWithUnknown(t)
	claimed := then(t, s)(RequestRefund(s, RefundOrder{Reason: "r", TransactionHash: hashA, Unknown: &ref, By: "m", At: 20}))
	dai := func(from, to string) ChainTransfer {
		return ChainTransfer{Contract: "0xdai", From: from, To: to, AmountUnits: "5000000000000000000"}
	}
	if _, reason, ok := JudgeRefund(claimed, RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: []ChainTransfer{dai("0xmerchant", "0xcust"), dai("0xcust", "0xthief")},
		BlockNumber: 9, BlockHash: "0xb9", At: 30}); ok || !strings.Contains(reason, "sends 0 raw units") {
		t.Fatalf("an unknown token's refund pulled back: ok %v (%s)", ok, reason)
	}
}

// Stop 64 (decided, unchanged): the merchant's wallet that topped up an underpayment is a payer
// of the receipt, and its transfers are no refund of it: the chain shows a payer, not whose
// wallet it is, and a customer's second wallet sending to its first must prove nothing. The
// merchant refunds from another wallet.
func TestRefundFromAWalletThatToppedUpIsRefused(t *testing.T) {
	t.Parallel()
	s := generated()
	s.Receipt.DepositAddress = "0xdeposit"
	s = apply(t, s, []Event{
		DepositTransferSeen{TransactionHash: "0xpay", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", Sender: "0xc0ffee", Token: "USDC", AmountUnits: "6000000", Decimals: 6, At: 3},
		DepositTransferConfirmed{TransactionHash: "0xpay", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", At: 4},
		DepositTransferSeen{TransactionHash: "0xtopup", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", Sender: "0xmerchant", Token: "USDC", AmountUnits: "4000000", Decimals: 6, At: 5},
		DepositTransferConfirmed{TransactionHash: "0xtopup", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", At: 6},
		PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xtopup", Token: "USDC", VerifiedBy: VerifiedByChain, Method: MethodDeposit, At: 6},
	}, nil)
	claimed := then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 400, Reason: "r", TransactionHash: hashA, By: "m", At: 20}))
	judge := func(from string) (bool, string) {
		refund := ChainTransfer{Token: "USDC", Decimals: 6, From: from, To: "0xc0ffee", AmountUnits: "4000000"}
		_, reason, ok := JudgeRefund(claimed, RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: []ChainTransfer{refund}, BlockNumber: 9, BlockHash: "0xb9", At: 30})
		return ok, reason
	}
	if ok, reason := judge("0xmerchant"); ok || !strings.Contains(reason, "0xmerchant paid the receipt") || !strings.Contains(reason, "is not a refund") {
		t.Fatalf("a refund from the wallet that topped up: ok %v (%s)", ok, reason)
	}
	if ok, reason := judge("0xtreasury"); !ok {
		t.Fatalf("a refund from another wallet: %s", reason)
	}
}
