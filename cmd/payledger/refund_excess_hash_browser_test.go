package main

import (
	"math/big"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A refund of the excess sent outside the page (or sent by its button, whose record failed, and
// the page left) is recorded by its hash: the form "Sent the excess already?" posts it with
// excess: true (a boolean: dash.js's serialiser had none, so a hidden field posted the string
// "true", which the API refuses), and the chain's proof makes it the excess's refund, the order's
// 12.00 still refundable. Before, the page's only hash field was the order's form, which records
// an order refund.
func TestRefundTheExcessByHashInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	env, _, mkey := startRefundEnv(t)
	customer, merchantWallet := env.dev.Accounts[0], env.dev.Accounts[1]
	usdc, _ := env.dev.Token("USDC")
	id, deposit := env.latteReceipt(t)
	env.sendToken(t, customer.Key, usdc.Address, deposit, big.NewInt(14_000_000))
	env.awaitStatus(t, id, 60*time.Second, func(st map[string]any) bool { return st["status"] == "paid" || st["status"] == "reconciled" })
	// The merchant sends the 2.00 of excess back from its wallet, outside the page.
	hash, err := sendSigned(t.Context(), env.eth, merchantWallet.Key, env.dev.ChainID, usdc.Address, new(big.Int), erc20Transfer(customer.Address, big.NewInt(2_000_000)))
	if err != nil {
		t.Fatal(err)
	}

	ctx, _ := env.receiptPageWithWallet(t, merchantWallet, mkey, id)
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1"`, 30*time.Second)
	if got := evalString(t, ctx, `document.getElementById("refund-excess-record") === null ? "no form" : document.getElementById("refund-excess-amount").value`); got != "2.00" {
		t.Fatalf("the page's form for a refund of the excess by its hash: %q, want its amount 2.00", got)
	}
	if err := chromedp.Run(ctx, chromedp.SetValue("#refund-excess-hash", hash, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#refund-excess-submit")
	waitJS(t, ctx, `document.querySelector("#refunds li[data-state=processed]") !== null ||
		(document.querySelector("#refund-excess-record .error") !== null && !document.querySelector("#refund-excess-record .error").hidden)`, 60*time.Second)
	if msg := evalString(t, ctx, `document.querySelector("#refund-excess-record .error") ? document.querySelector("#refund-excess-record .error").textContent : ""`); msg != "" {
		t.Fatalf("recording the excess's refund: %s", msg)
	}
	st := env.awaitStatus(t, id, 10*time.Second, func(st map[string]any) bool { return st["refundedExcessUsd"] == 2.0 })
	refunds, _ := st["refunds"].([]any)
	if len(refunds) != 1 || refunds[0].(map[string]any)["excess"] != true || st["refundedUsd"] != 0.0 || st["status"] == "refunded" {
		t.Fatalf("after the excess's refund: %v", st)
	}
	waitJS(t, ctx, `document.getElementById("refund-amount") !== null && document.documentElement.dataset.ready === "1"`, 10*time.Second)
	if got := evalString(t, ctx, `(document.getElementById("refund-excess-record") === null ? "" : "excess offered ") + document.getElementById("refund-amount").value`); got != "12.00" {
		t.Errorf("after the excess's refund the page shows %q, want the order's 12.00 and no excess", got)
	}
}
