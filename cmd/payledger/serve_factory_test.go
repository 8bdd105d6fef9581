package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/migrations/pgtest"
)

// A DEPOSIT_FACTORY that is not a deposit factory on the node's chain (here: the chain's USDC
// token) stops serve at start, naming the variable: before, serve handed every receipt an address
// no contract could ever be deployed to, and what customers paid there could not be swept.
func TestServeRefusesADepositFactoryThatIsNotOne(t *testing.T) {
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	dev := startTestDevchain(t)
	t.Cleanup(dev.stop)
	platform := strings.ToLower(crypto.PubkeyToAddress(mustKey(t).PublicKey).Hex())
	vars := map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "PLATFORM_RECIPIENT": platform, "HTTP_ADDR": "127.0.0.1:0"}
	onChain(vars, dev.vars)
	usdc := ""
	for _, tok := range strings.Split(dev.vars["CHAIN_TOKENS"], ",") {
		if sym, addr, ok := strings.Cut(tok, "="); ok && strings.EqualFold(sym, "USDC") {
			usdc = strings.SplitN(addr, ":", 2)[0]
		}
	}
	if usdc == "" {
		t.Fatalf("no USDC in CHAIN_TOKENS %q", dev.vars["CHAIN_TOKENS"])
	}
	vars["DEPOSIT_FACTORY"] = usdc
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a serve that starts runs until this ends: exit 0
	defer cancel()
	var out syncbuf.Buffer // serve logs from its workers too
	code := run(ctx, []string{"serve"}, env(vars), &out, &out)
	if code == 0 || !strings.Contains(out.String(), "DEPOSIT_FACTORY") ||
		!strings.Contains(out.String(), "is not a deposit factory") {
		t.Fatalf("serve with a token as DEPOSIT_FACTORY: exit %d\n%s", code, out.String())
	}
}
