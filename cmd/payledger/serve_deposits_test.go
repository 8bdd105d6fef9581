package main

import (
	"context"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/migrations/pgtest"
)

// Issue 26 through the real binary: serve without DEPOSIT_FACTORY deploys the factory from the
// operator key; a receipt shows its deposit address; a plain USDC transfer to it from a phone
// wallet (no hash submitted anywhere) makes the receipt pending, then paid, with the amounts on
// the status read.
func TestServeDepositPaidByPlainTransfer(t *testing.T) {
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var chainOut, chainErr devchainOut
	go func() {
		run(ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, noEnv, &chainOut, &chainErr)
	}()
	vars, accounts := readDevchainBanner(t, &chainOut, &chainErr)
	platform := strings.ToLower(crypto.PubkeyToAddress(mustKey(t).PublicKey).Hex())
	serveVars := map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "PLATFORM_RECIPIENT": platform}
	for _, k := range []string{"ETH_RPC_URL", "CHAIN_ID", "CHAIN_TOKENS", "CHAIN_OPERATOR_KEY", "SPEND_PERMISSION_MANAGER"} {
		serveVars[k] = vars[k] // DEPOSIT_FACTORY left out: serve deploys one
	}
	base, serveOut, stopServe := startServeStoppable(t, serveVars)
	t.Cleanup(stopServe)
	c := &e2eClient{t: t, base: base}
	merchantKey := mustKey(t)
	merchant := strings.ToLower(crypto.PubkeyToAddress(merchantKey.PublicKey).Hex())
	apiKey := createKey(t, ctx, serveVars, merchant, "receipts:write,receipts:read,split:read", "e2e")
	c.login(merchantKey)
	if code, m := c.call(http.MethodPost, "/api/split/deploy", "", map[string]any{}); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("split deploy: %d %v\n%s", code, m, serveOut.String())
	}
	code, m := c.call(http.MethodPost, "/api/receipts", apiKey, map[string]any{"lineItems": []map[string]any{{"label": "Coffee", "priceUsd": 12.5}}, "totalUsd": 12.5})
	if code != http.StatusCreated {
		t.Fatalf("create receipt: %d %v", code, m)
	}
	id := findString(m, "receiptId")
	_, m = c.call(http.MethodGet, "/api/receipts/"+id, apiKey, nil)
	r, _ := m["receipt"].(map[string]any)
	deposit, _ := r["depositAddress"].(string)
	if !common.IsHexAddress(deposit) || r["amountRequired"] != "12.50" || r["amountReceived"] != nil || r["paidLate"] != false {
		t.Fatalf("receipt before payment: %v\n%s", r, serveOut.String())
	}
	payDepositAndWait(t, c, apiKey, id, deposit, vars, accounts[0], serveOut.String)
}

// payDepositAndWait sends 12.50 USDC from account to deposit by a plain transfer and waits until
// the status read says paid with the amounts.
func payDepositAndWait(t *testing.T, c *e2eClient, apiKey, id, deposit string, vars map[string]string, account []string, logs func() string) {
	ec, err := ethclient.Dial(vars["ETH_RPC_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	key, err := crypto.HexToECDSA(strings.TrimPrefix(account[2], "0x"))
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := bind.NewKeyedTransactorWithChainID(key, big.NewInt(chain.DevChainID))
	usdc := common.HexToAddress(strings.Split(strings.Split(vars["CHAIN_TOKENS"], "USDC=")[1], ":")[0])
	if _, err := chain.SendToken(opts, ec, usdc, common.HexToAddress(deposit), big.NewInt(12_500_000)); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		_, m := c.call(http.MethodGet, "/api/receipts/status?receiptId="+id, apiKey, nil)
		if s, _ := m["status"].(string); s != "" && (len(seen) == 0 || seen[len(seen)-1] != s) {
			seen = append(seen, s)
		}
		if m["status"] == "paid" || m["status"] == "reconciled" {
			if m["amountReceived"] != "12.50" || m["depositAddress"] != deposit || !strings.EqualFold(findString(m, "buyerWallet"), account[1]) {
				t.Fatalf("paid status read: %v", m)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("statuses %v\n%s", seen, logs())
		}
	}
	if seen[0] != "generated" && seen[0] != "pending" {
		t.Errorf("statuses seen %v", seen)
	}
}
