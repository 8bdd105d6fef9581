package main

import (
	"math/big"
	"testing"
	"time"
)

// "Refund the excess" in a browser, with the wallet sending on the development chain: the page's
// button sent the excess of an overpaid receipt (14.00 for 12.00) and records it as a refund of
// the excess (excess: true), which the chain's proof makes refunded; the order's 12.00 stays
// refundable in whole. Before stop 70's dashexcess fix the button only filled the amount field
// and "Refund with wallet" posted it as an order refund.
func TestRefundTheExcessInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	env, _, mkey := startRefundEnv(t)
	customer, merchantWallet := env.dev.Accounts[0], env.dev.Accounts[1]
	usdc, _ := env.dev.Token("USDC")
	id, deposit := env.latteReceipt(t)
	env.sendToken(t, customer.Key, usdc.Address, deposit, big.NewInt(14_000_000))
	env.awaitStatus(t, id, 60*time.Second, func(st map[string]any) bool { return st["status"] == "paid" || st["status"] == "reconciled" })
	before := env.usdcOf(t, customer.Address)

	ctx, _ := env.receiptPageWithWallet(t, merchantWallet, mkey, id)
	if got := evalString(t, ctx, `document.getElementById("refund-excess").getAttribute("data-amount")`); got != "2.00" {
		t.Fatalf("the page offers %q of excess, want 2.00", got)
	}
	click(t, ctx, "#refund-excess")
	waitJS(t, ctx, `document.querySelector("#refunds li[data-state=processed]") !== null ||
		(document.getElementById("wallet-refund-error") !== null && !document.getElementById("wallet-refund-error").hidden)`, 60*time.Second)
	if msg := evalString(t, ctx, `document.getElementById("wallet-refund-error") ? document.getElementById("wallet-refund-error").textContent : ""`); msg != "" {
		t.Fatalf("the refund of the excess: %s", msg)
	}
	st := env.awaitStatus(t, id, 10*time.Second, func(st map[string]any) bool { return st["refundedExcessUsd"] == 2.0 })
	refunds, _ := st["refunds"].([]any)
	if len(refunds) != 1 || refunds[0].(map[string]any)["excess"] != true || st["refundedUsd"] != 0.0 || st["status"] == "refunded" {
		t.Fatalf("after the excess's refund: %v", st)
	}
	if got := new(big.Int).Sub(env.usdcOf(t, customer.Address), before); got.Int64() != 2_000_000 {
		t.Errorf("the customer's USDC changed by %s base units, want 2000000", got)
	}
	waitJS(t, ctx, `document.getElementById("refund-amount") !== null`, 10*time.Second)
	if got := evalString(t, ctx, `(document.getElementById("refund-excess") === null ? "" : "excess offered ") + document.getElementById("refund-amount").value`); got != "12.00" {
		t.Errorf("after the excess's refund the page shows %q, want the order's 12.00 and no excess", got)
	}
}
