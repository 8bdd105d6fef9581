package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/payledger/payledger/chain/contracts"
)

// Issue 26 through the real binary, to the end: a receipt paid by a plain transfer to its deposit
// address is swept by serve's sweeper and distributed: reconciled, the deposit empty.
func TestServeDepositSweptToReconciled(t *testing.T) {
	d := newDepositServe(t, withDevchainFactory())
	c, apiKey, id, deposit, vars, serveOut := d.c, d.apiKey, d.id, d.deposit, d.vars, d.out
	payDepositAndWait(t, c, apiKey, id, deposit, vars, d.accounts[0], serveOut.String)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		if _, m := c.call(http.MethodGet, "/api/receipts/status?receiptId="+id, apiKey, nil); m["status"] == "reconciled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not reconciled\n%s", serveOut.String())
		}
	}
	ec, err := ethclient.Dial(vars["ETH_RPC_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	usdc := common.HexToAddress(strings.Split(strings.Split(vars["CHAIN_TOKENS"], "USDC=")[1], ":")[0])
	tok, err := contracts.NewTestToken(usdc, ec)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := tok.BalanceOf(&bind.CallOpts{Context: d.ctx}, common.HexToAddress(deposit)); err != nil || b.Sign() != 0 {
		t.Fatalf("the deposit holds %v USDC after reconciliation (%v)", b, err)
	}
}
