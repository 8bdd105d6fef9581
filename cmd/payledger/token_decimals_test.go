package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// serve asks each CHAIN_TOKENS contract for its decimals() at start. Decimals that differ from the
// contract's would make every amount in that token off by a power of ten (USDC configured with 18
// would ask 10^12 times more; a 6 configured for an 18-decimal token 10^12 times less), so serve
// refuses to start and says which entry is wrong. A token address that answers no decimals()
// (no contract there) cannot be checked: serve starts and logs an error naming it.
func TestServeChecksTokenDecimals(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	vars, usdc := devchainWithUSDC(t, ctx)
	serveVars := map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "HTTP_ADDR": "127.0.0.1:0"}
	for _, k := range []string{"ETH_RPC_URL", "CHAIN_ID", "CHAIN_OPERATOR_KEY", "SPEND_PERMISSION_MANAGER", "DEPOSIT_FACTORY"} {
		serveVars[k] = vars[k]
	}

	serveVars["CHAIN_TOKENS"] = strings.Replace(vars["CHAIN_TOKENS"], usdc[0], "USDC="+usdc[1]+":18", 1)
	var out syncBuffer
	refused, stop := context.WithTimeout(ctx, time.Minute) // a serve that starts is stopped: exit 0
	defer stop()
	if code := run(refused, []string{"serve"}, env(serveVars), &out, &out); code == 0 ||
		!strings.Contains(out.String(), fmt.Sprintf("USDC at %s has 6 decimals, CHAIN_TOKENS says 18", usdc[1])) {
		t.Fatalf("serve with USDC's decimals wrong: exit %d\n%s", code, out.String())
	}

	nowhere := "0x000000000000000000000000000000000000dEaD"
	serveVars["CHAIN_TOKENS"] = vars["CHAIN_TOKENS"] + ",GONE=" + nowhere + ":6"
	delete(serveVars, "HTTP_ADDR")
	_, log := startServe(t, serveVars)
	if !strings.Contains(log.String(), `"tokens":["GONE"]`) || !strings.Contains(log.String(), "do not answer decimals()") {
		t.Fatalf("no error naming the token without a contract:\n%s", log.String())
	}
}

// devchainWithUSDC runs `payledger devchain` until ctx ends and returns its banner's variables and
// the CHAIN_TOKENS entry of its USDC with 6 decimals (the match and the address).
func devchainWithUSDC(t *testing.T, ctx context.Context) (map[string]string, []string) {
	t.Helper()
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	var chainOut, chainErr devchainOut
	go func() { _ = run(ctx, []string{"devchain", "--port", "0"}, noEnv, &chainOut, &chainErr) }()
	vars, _ := readDevchainBanner(t, &chainOut, &chainErr)
	usdc := regexp.MustCompile(`USDC=(0x[0-9a-fA-F]{40}):6`).FindStringSubmatch(vars["CHAIN_TOKENS"])
	if usdc == nil {
		t.Fatalf("no USDC with 6 decimals in CHAIN_TOKENS %q", vars["CHAIN_TOKENS"])
	}
	return vars, usdc
}
