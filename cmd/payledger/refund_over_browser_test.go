package main

import (
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// "Refund with wallet" of more than the receipt may refund: the wallet sent it and only then did
// the API refuse to record its hash (over the unrefunded total), so the money had left the
// merchant's wallet for the customer uncounted. The page now refuses the amount before the wallet
// is asked to send anything.
func TestRefundWithWalletRefusesMoreThanRefundableInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	env, _, mkey := startRefundEnv(t)
	customer, merchantWallet := env.dev.Accounts[0], env.dev.Accounts[1]
	usdc, _ := env.dev.Token("USDC")
	id, deposit := env.latteReceipt(t)
	env.sendToken(t, customer.Key, usdc.Address, deposit, big.NewInt(12_000_000))
	env.awaitStatus(t, id, 60*time.Second, func(st map[string]any) bool { return st["status"] == "paid" || st["status"] == "reconciled" })
	before := env.usdcOf(t, customer.Address)

	ctx, w := env.receiptPageWithWallet(t, merchantWallet, mkey, id)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(function () { var a = document.getElementById("refund-amount"); a.value = "120.00";
		a.dispatchEvent(new Event("input")); })()`, nil)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#refund-wallet")
	waitJS(t, ctx, `!document.getElementById("wallet-refund-error").hidden`, 30*time.Second)
	msg := evalString(t, ctx, `document.getElementById("wallet-refund-error").textContent`)
	w.mu.Lock()
	calls := slices.Clone(w.calls)
	w.mu.Unlock()
	if slices.Contains(calls, "eth_sendTransaction") || !strings.Contains(msg, "At most 12.00 can be refunded") {
		t.Fatalf("refund of 120.00 on a 12.00 receipt: wallet calls %v, page says %q", calls, msg)
	}
	if got := env.usdcOf(t, customer.Address); got.Cmp(before) != 0 {
		t.Fatalf("the customer's USDC changed by %s base units", new(big.Int).Sub(got, before))
	}
}

// A blank reason (spaces) on "Refund with wallet": the wallet sent the refund and the API then
// refused the hash's record for want of a reason, so the refund went uncounted. The page now
// records it with the default reason.
func TestRefundWithWalletBlankReasonInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	env, _, mkey := startRefundEnv(t)
	customer, merchantWallet := env.dev.Accounts[0], env.dev.Accounts[1]
	usdc, _ := env.dev.Token("USDC")
	id, deposit := env.latteReceipt(t)
	env.sendToken(t, customer.Key, usdc.Address, deposit, big.NewInt(12_000_000))
	env.awaitStatus(t, id, 60*time.Second, func(st map[string]any) bool { return st["status"] == "paid" || st["status"] == "reconciled" })

	ctx, _ := env.receiptPageWithWallet(t, merchantWallet, mkey, id)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(function () { var a = document.getElementById("refund-amount"); a.value = "6.00";
		a.dispatchEvent(new Event("input")); document.getElementById("refund-reason").value = "   "; })()`, nil)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#refund-wallet")
	waitJS(t, ctx, `document.querySelector("#refunds li") !== null || !document.getElementById("wallet-refund-error").hidden`, 30*time.Second)
	if msg := evalString(t, ctx, `document.getElementById("wallet-refund-error") ? document.getElementById("wallet-refund-error").textContent : ""`); msg != "" {
		t.Fatalf("the refund sent with a blank reason was not recorded: %s", msg)
	}
	env.awaitStatus(t, id, 10*time.Second, func(st map[string]any) bool { rs, _ := st["refunds"].([]any); return len(rs) == 1 })
}
