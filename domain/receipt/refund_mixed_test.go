package receipt

import (
	"strings"
	"testing"
)

// paidInUSDCAndETH is a 10.00 USD receipt quoted 0.004 ETH (2500 USD) and paid 5 USDC from
// 0xc0ffee plus 0.002 ETH from 0xbeef at its deposit: payment counts each by its share of its
// own token's required amount.
func paidInUSDCAndETH(t *testing.T) State {
	t.Helper()
	s := generated()
	s.Receipt.DepositAddress = "0xdeposit"
	return apply(t, s, []Event{
		TokenQuoted{Token: "ETH", Amount: "0.004", TokenUSDPrice: "2500", AmountUSD: "10.00", At: 2},
		DepositTransferSeen{TransactionHash: "0xpay1", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", Sender: "0xc0ffee", Token: "USDC", AmountUnits: "5000000", Decimals: 6, At: 3},
		DepositTransferConfirmed{TransactionHash: "0xpay1", LogIndex: 0, BlockNumber: 5, BlockHash: "0xb5", At: 4},
		DepositTransferSeen{TransactionHash: "0xpay2", LogIndex: ETHLogIndex, BlockNumber: 6, BlockHash: "0xb6", Sender: "0xbeef", Token: "ETH", AmountUnits: "2000000000000000", Decimals: 18, At: 5},
		DepositTransferConfirmed{TransactionHash: "0xpay2", LogIndex: ETHLogIndex, BlockNumber: 6, BlockHash: "0xb6", At: 6},
		PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xpay2", Token: "ETH", VerifiedBy: VerifiedByChain, Method: MethodDeposit, At: 6},
	}, nil)
}

// Stop 68: a priced token and another paid token count together for a refund, each by its share
// of its own required amount at the receipt's quote, as the payment counted them; what the
// transaction pulls back from the customer in a paid token is taken off.
func TestRefundInAPricedAndAStableToken(t *testing.T) {
	t.Parallel()
	base := paidInUSDCAndETH(t)
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
		reason    string
	}{
		{"5 USDC and 0.002 ETH back in one transaction", 1000,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "5000000"), tr("ETH", 18, "0xmerchant", "0xbeef", "2000000000000000")}, true, "USDC+ETH", ""},
		{"a half refund in a mix", 500,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "2500000"), tr("ETH", 18, "0xmerchant", "0xbeef", "1000000000000000")}, true, "USDC+ETH", ""},
		{"a mix a wei short", 1000,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "5000000"), tr("ETH", 18, "0xmerchant", "0xbeef", "1999999999999999")}, false, "",
			"worth 9.99 of the refund's 10.00"},
		{"ETH alone reads as before", 1000,
			[]ChainTransfer{tr("ETH", 18, "0xmerchant", "0xbeef", "4000000000000000")}, true, "ETH", ""},
		{"ETH back while as much USDC is pulled from the customer", 500,
			[]ChainTransfer{tr("ETH", 18, "0xmerchant", "0xbeef", "2000000000000000"), tr("USDC", 6, "0xc0ffee", "0xmerchant", "5000000")}, false, "",
			"worth 0.00 of the refund's 5.00"},
		{"USDC back while ETH is pulled from the customer", 500,
			[]ChainTransfer{tr("USDC", 6, "0xmerchant", "0xc0ffee", "5000000"), tr("ETH", 18, "0xbeef", "0xmerchant", "1000000000000000")}, false, "",
			"worth 2.50 of the refund's 5.00"},
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
			if p.Token != c.token {
				t.Fatalf("processed %s, want %s", p.Token, c.token)
			}
			if mixed := strings.Contains(c.token, "+"); mixed != (len(p.Parts) == 2) || mixed && (p.AmountUnits != "" || p.Parts[1].Token != "ETH") {
				t.Fatalf("processed %+v for %s", p, c.token)
			}
			after := then(t, s)(ProcessRefund(s, p))
			if int64(after.RefundedCents) != c.cents || after.Refunds[0].State != RefundStateProcessed {
				t.Fatalf("refunded %d, refunds %+v", after.RefundedCents, after.Refunds)
			}
			if c.cents == 1000 && after.Status != StatusRefunded {
				t.Fatalf("status %s after the whole refund", after.Status)
			}
		})
	}
}
