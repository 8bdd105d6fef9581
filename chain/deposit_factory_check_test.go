package chain_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
)

// TestCheckDepositFactory: only a deposit factory passes; an address with no code (a typo) and a
// contract that is something else (a token) are refused, so serve never hands out addresses
// nothing can sweep.
func TestCheckDepositFactory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	factory, tx, _, err := contracts.DeployDepositFactory(e.opts(e.operator), e.sim)
	e.ok(err)
	e.mined(tx)
	if err := chain.CheckDepositFactory(ctx, e.sim, factory); err != nil {
		t.Fatalf("the deployed factory: %v", err)
	}
	for name, addr := range map[string]common.Address{"no code": common.HexToAddress("0x00000000000000000000000000000000000f00d5"), "a token": e.usdc} {
		err := chain.CheckDepositFactory(ctx, e.sim, addr)
		if err == nil || !strings.Contains(err.Error(), "is not a deposit factory") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
