package main

// Issue 41, the last part, in a real browser: a token the service does not configure (the
// development chain's USDT, left out of CHAIN_TOKENS) sent to a receipt's deposit is returned
// from the merchant's browser wallet on the receipt's page ("Refund with wallet" in the token's
// row), proven on the development chain, in raw units: the receipt's status and refundedUsd stay.

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"
)

func TestUnknownTokenRefundWithWalletInBrowser(t *testing.T) {
	chromiumPath(t)
	env, _, mkey := startRefundEnv(t, map[string]string{onlyTokens: "USDC"})
	customer, merchantWallet := env.dev.Accounts[0], env.dev.Accounts[1]
	usdt, _ := env.dev.Token("USDT")

	id, deposit := env.latteReceipt(t)
	env.sendToken(t, customer.Key, usdt.Address, deposit, big.NewInt(7_000_000))
	env.awaitUnknownToken(t, id)
	before := env.tokenOf(t, usdt.Address, customer.Address)
	status := env.awaitStatus(t, id, time.Second, func(map[string]any) bool { return true })["status"]

	ctx, _ := env.receiptPageWithWallet(t, merchantWallet, mkey, id)
	click(t, ctx, "#unknown-tokens .unknown-refund-wallet")
	waitJS(t, ctx, `document.querySelector("#unknown-tokens .badge.refunded") !== null && document.documentElement.dataset.ready === "1"`, 60*time.Second)

	st := env.awaitStatus(t, id, 10*time.Second, func(st map[string]any) bool { return len(st["refunds"].([]any)) == 1 })
	rf := st["refunds"].([]any)[0].(map[string]any)
	if rf["state"] != "processed" || rf["proof"] != "chain" || rf["amountUsd"] != 0.0 || rf["amount"] != "7000000" ||
		!strings.EqualFold(rf["token"].(string), usdt.Address.Hex()) || !strings.EqualFold(rf["to"].(string), customer.Address.Hex()) {
		t.Errorf("refund %v", rf)
	}
	if st["status"] != status || st["refundedUsd"] != 0.0 {
		t.Errorf("the refund of a token that paid nothing moved the receipt: %v (was %v), refundedUsd %v", st["status"], status, st["refundedUsd"])
	}
	if got := new(big.Int).Sub(env.tokenOf(t, usdt.Address, customer.Address), before); got.Int64() != 7_000_000 {
		t.Errorf("the customer's USDT changed by %s raw units, want 7000000", got)
	}
}

// awaitUnknownToken waits until the receipt's history holds a DepositUnknownToken.
func (e *portalEnv) awaitUnknownToken(t *testing.T, id string) {
	t.Helper()
	e.awaitHistory(t, id, "a DepositUnknownToken", func(ev historyEvent) bool {
		var u struct{ AmountUnits string }
		return ev.Type == "DepositUnknownToken" && json.Unmarshal(ev.Data, &u) == nil && u.AmountUnits == "7000000"
	})
}
