package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestDevchainPayRefusesAnotherChainsRequest: a service whose payment request is on another
// chain (84532 here) than the one `devchain pay` would send on (the development chain, 1337: a
// stale --env-file, the service on a testnet) gets nothing sent: exit 1, naming both chains. The
// transfer was sent on the development chain and reported mined, for the service to find on a
// chain it never went to.
func TestDevchainPayRefusesAnotherChainsRequest(t *testing.T) {
	t.Parallel()
	dev, envFile := devChainWithEnvFile(t)
	ctx := context.Background()
	usdc, _ := dev.Token("USDC")
	deposit := crypto.PubkeyToAddress(mustKey(t).PublicKey)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/portal/rcpt_far":
			fmt.Fprint(w, `{"receipt":{"receiptId":"rcpt_far","totalUsd":12.31,"currency":"USD","status":"generated"}}`)
		case "/api/portal/rcpt_far/quote":
			fmt.Fprint(w, `{"ok":true,"token":"USDC","amount":"12.31"}`)
		case "/api/portal/rcpt_far/request":
			fmt.Fprintf(w, `{"token":"USDC","amount":"12.31","amountUnits":"12310000","amountRequired":"12.31","decimals":6,"recipient":%q,"tokenAddress":%q,"chainId":84532}`,
				deposit.Hex(), usdc.Address.Hex())
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"devchain", "pay", "rcpt_far", "--base-url", api.URL, "--env-file", envFile}, noEnv, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "the service asks for a payment on chain 84532, and the chain at "+dev.URL+" is chain 1337: nothing was sent") {
		t.Fatalf("exit %d (want 1, naming both chains)\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if got := tokenBalance(t, dev.URL, usdc.Address, deposit); got.Sign() != 0 {
		t.Fatalf("the deposit holds %s on the development chain, want nothing sent", got)
	}
}
