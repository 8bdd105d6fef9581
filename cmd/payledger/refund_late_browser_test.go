package main

// Issue 41 item 3 in a real browser: a payment that arrives after an expired receipt's
// late-payment watch pays nothing, is recorded with its sender and amount, and is refunded from
// the merchant's browser wallet on the receipt's page, proven on the development chain.

import (
	"encoding/json"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/internal/wait"
)

func TestLateRefundWithWalletInBrowser(t *testing.T) {
	chromiumPath(t)
	const window, monitor = 3 * time.Second, 2 * time.Second
	env, _, mkey := startRefundEnv(t, map[string]string{"PAYMENT_WINDOW": window.String(), "PAYMENT_MONITOR_WINDOW": monitor.String()})
	customer, merchantWallet := env.dev.Accounts[0], env.dev.Accounts[1]
	usdc, _ := env.dev.Token("USDC")

	id, deposit := env.latteReceipt(t)
	env.awaitStatus(t, id, 30*time.Second, func(st map[string]any) bool { return st["status"] == "failed" })
	// The transfer must be confirmed after the expiry's monitorUntil: it is sent once the clock
	// has passed it (the block then takes at least 500 ms more).
	until := time.UnixMilli(env.monitorUntil(t, id))
	wait.Until(t, "the clock past monitorUntil", time.Until(until)+time.Minute, func() bool { return time.Now().After(until) })

	env.sendToken(t, customer.Key, usdc.Address, deposit, big.NewInt(12_000_000))
	env.awaitStatus(t, id, 60*time.Second, func(st map[string]any) bool { return st["amountReceived"] == "12.00" })
	env.awaitIgnored(t, id, customer.Address)
	if st := env.awaitStatus(t, id, time.Second, func(map[string]any) bool { return true }); st["status"] != "failed" || st["paidLate"] != false {
		t.Fatalf("the late payment paid: %v", st)
	}
	before := env.usdcOf(t, customer.Address)

	ctx, _ := env.receiptPageWithWallet(t, merchantWallet, mkey, id)
	if got := evalString(t, ctx, `document.querySelector("#transfers .late") ? "late" : ""`); got != "late" {
		t.Errorf("the transfer is not marked as having paid nothing")
	}
	if got := evalString(t, ctx, `document.getElementById("wallet-refund-to").textContent`); !strings.EqualFold(got, customer.Address.Hex()) {
		t.Fatalf("refund to %q, want the late payer %s", got, customer.Address.Hex())
	}
	if got := evalString(t, ctx, `document.getElementById("wallet-refund-amount").textContent`); got != "12" {
		t.Errorf("proposed %q USDC, want the whole 12", got)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("refund-reason").value = "Paid after the order expired"`, nil)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#refund-wallet")
	waitJS(t, ctx, `document.querySelector("#refunds li[data-state=processed]") !== null && document.documentElement.dataset.ready === "1"`, 60*time.Second)

	st := env.awaitStatus(t, id, 10*time.Second, func(st map[string]any) bool { return st["refundedUsd"] == 12.0 })
	refunds, _ := st["refunds"].([]any)
	if st["status"] != "failed" || len(refunds) != 1 {
		t.Fatalf("status read after the refund: %v %v", st["status"], refunds)
	}
	if rf := refunds[0].(map[string]any); rf["state"] != "processed" || rf["proof"] != "chain" || !strings.EqualFold(rf["to"].(string), customer.Address.Hex()) {
		t.Errorf("refund %v", rf)
	}
	if got := new(big.Int).Sub(env.usdcOf(t, customer.Address), before); got.Int64() != 12_000_000 {
		t.Errorf("the customer's USDC changed by %s base units, want 12000000", got)
	}
}

// monitorUntil is the end of the late-payment watch the receipt's expiry recorded (Unix ms).
func (e *portalEnv) monitorUntil(t *testing.T, id string) int64 {
	t.Helper()
	for _, ev := range e.history(t, id) {
		var x struct{ MonitorUntil int64 }
		if ev.Type == "PaymentWindowExpired" && json.Unmarshal(ev.Data, &x) == nil && x.MonitorUntil > 0 {
			return x.MonitorUntil
		}
	}
	t.Fatalf("receipt %s has no PaymentWindowExpired", id)
	return 0
}

type historyEvent struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// history is the receipt's events as GET /api/receipts/{id}/events answers them (none on an error).
func (e *portalEnv) history(t *testing.T, id string) []historyEvent {
	t.Helper()
	var page struct {
		Events []historyEvent `json:"events"`
	}
	e.call(t, http.MethodGet, "/api/receipts/"+id+"/events", "", &page)
	return page.Events
}

// awaitIgnored waits until the receipt's history holds the PaymentIgnored of the late payment,
// with its sender and base units.
func (e *portalEnv) awaitIgnored(t *testing.T, id string, sender common.Address) {
	t.Helper()
	e.awaitHistory(t, id, "the PaymentIgnored of the late payment", func(ev historyEvent) bool {
		var ig struct{ Sender, AmountUnits string }
		return ev.Type == "PaymentIgnored" && json.Unmarshal(ev.Data, &ig) == nil && strings.EqualFold(ig.Sender, sender.Hex()) && ig.AmountUnits == "12000000"
	})
}

// awaitHistory waits until the receipt's history holds an event that matches.
func (e *portalEnv) awaitHistory(t *testing.T, id, what string, matches func(historyEvent) bool) {
	t.Helper()
	wait.Until(t, what+" in "+id+"'s history", 30*time.Second, func() bool {
		return slices.ContainsFunc(e.history(t, id), matches)
	})
}
