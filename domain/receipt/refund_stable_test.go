package receipt

import (
	"encoding/json"
	"strings"
	"testing"
)

// paidInTwoStables is a 10.00 USD receipt paid 5 USDC from 0xc0ffee and 5 USDT from 0xbeef at
// its deposit: payment counts the two one to one.
func paidInTwoStables(t *testing.T) State {
	t.Helper()
	s := generated()
	s.Receipt.DepositAddress = "0xdeposit"
	return apply(t, s, []Event{
		DepositTransferSeen{TransactionHash: "0xpay1", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", Sender: "0xC0FFEE", Token: "USDC", AmountUnits: "5000000", Decimals: 6, At: 3},
		DepositTransferConfirmed{TransactionHash: "0xpay1", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", At: 4},
		DepositTransferSeen{TransactionHash: "0xpay2", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", Sender: "0xbeef", Token: "USDT", AmountUnits: "5000000", Decimals: 6, At: 5},
		DepositTransferConfirmed{TransactionHash: "0xpay2", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", At: 6},
		PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xpay2", Token: "USDT", VerifiedBy: VerifiedByChain, Method: MethodDeposit, At: 6},
	}, nil)
}

// Stop 67: the stable tokens a receipt was paid in count together for its refund, one to one as
// its payment counted them; each transfer once, net of what the transaction pulls back in any of
// them, never more than the claim.
func TestRefundInTwoStableTokens(t *testing.T) {
	t.Parallel()
	base := paidInTwoStables(t)
	if got := base.PaidTokens(); len(got) != 2 || base.Status != StatusPaid {
		t.Fatalf("paid in %v, status %s", got, base.Status)
	}
	claimed := func(cents int64) State {
		return then(t, base)(RequestRefund(base, RefundOrder{AmountCents: cents, Reason: "r", TransactionHash: hashA, By: "m", At: 20}))
	}
	tr := func(token string, decimals uint8, from, to, units string) ChainTransfer {
		return ChainTransfer{Token: token, Decimals: decimals, From: from, To: to, AmountUnits: units}
	}
	for _, c := range []struct {
		name      string
		cents     int64
		transfers []ChainTransfer
		ok        bool
		token     string
		units     string
		reason    string
	}{
		{"5 USDC and 5 USDT back in one transaction", 1000,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "5000000"), tr("USDT", 6, "0xmerchant", "0xbeef", "5000000")}, true, "USDC+USDT", "10000000", ""},
		{"both to one payer", 1000,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xbeef", "5000000"), tr("USDT", 6, "0xmerchant", "0xbeef", "5000000")}, true, "USDC+USDT", "10000000", ""},
		{"one token alone reads as before", 1000,
			[]ChainTransfer{tr("USDT", 6, "0xmerchant", "0xc0ffee", "10000000")}, true, "USDT", "10000000", ""},
		{"a mix a base unit short", 1000,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "5000000"), tr("USDT", 6, "0xmerchant", "0xbeef", "4999999")}, false, "", "",
			"sends 9999999 base units of USDC+USDT back"},
		{"what one token pulls back is taken off the other", 1000,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "10000000"), tr("USDT", 6, "0xc0ffee", "0xmerchant", "5000000")}, false, "", "",
			"sends 5000000 base units of USDC back"},
		{"the same amount twice in one token does not pay the other's share", 1000,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "5000000"), tr("USDT", 6, "0xc0ffee", "0xc0ffee", "5000000")}, false, "", "",
			"less than the refund's 10000000"},
		{"different decimals add up exactly", 1000,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "5000000"), tr("USDT", 18, "0xmerchant", "0xbeef", "5000000000000000000")}, true, "USDC+USDT",
			"10000000000000000000", ""},
		{"a half refund in a mix", 500,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "2500000"), tr("USDT", 6, "0xmerchant", "0xbeef", "2500000")}, true, "USDC+USDT", "5000000", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := claimed(c.cents)
			p, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: c.transfers, BlockNumber: 9, BlockHash: "0xb9", At: 30})
			if ok != c.ok || !strings.Contains(reason, c.reason) {
				t.Fatalf("ok %v reason %q, want %v %q", ok, reason, c.ok, c.reason)
			}
			if !ok {
				return
			}
			if p.Token != c.token || p.AmountUnits != c.units {
				t.Fatalf("processed %s %s, want %s %s", p.Token, p.AmountUnits, c.token, c.units)
			}
			if mixed := strings.Contains(c.token, "+"); mixed != (len(p.Parts) == 2) {
				t.Fatalf("parts %+v for %s", p.Parts, c.token)
			}
			after := then(t, s)(ProcessRefund(s, p))
			if int64(after.RefundedCents) != c.cents || after.Refunds[0].State != RefundStateProcessed {
				t.Fatalf("refunded %d, refunds %+v", after.RefundedCents, after.Refunds)
			}
			if c.cents == 1000 && after.Status != StatusRefunded {
				t.Fatalf("status %s after the whole refund", after.Status)
			}
			if c.name == "5 USDC and 5 USDT back in one transaction" && after.Refunds[0].TokenAmount() != "10.00" {
				t.Fatalf("token amount %q", after.Refunds[0].TokenAmount())
			}
			// the event keeps its parts through the store's JSON
			raw, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			e, err := Decode(EventRefundProcessed, raw)
			if err != nil || len(e.(RefundProcessed).Parts) != len(p.Parts) {
				t.Fatalf("decoded %+v, %v", e, err)
			}
		})
	}
}
