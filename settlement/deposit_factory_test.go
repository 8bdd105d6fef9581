package settlement_test

import (
	"context"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/settlement/pgstore"
)

// DESIGN 9: without DEPOSIT_FACTORY, serve deploys the factory once and keeps its address; two
// instances starting together end with one factory, and a later start finds it.
func TestDepositFactoryDeployedOnce(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	sealing, stop := make(chan struct{}), make(chan struct{})
	go func() { // the chain seals a block every 100 ms, as the development chain does
		defer close(sealing)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				e.b.Commit()
			}
		}
	}()
	defer func() { close(stop); <-sealing }()
	keyHex := hex.EncodeToString(crypto.FromECDSA(e.op))
	var deploys atomic.Int32
	deploy := func(ctx context.Context) (string, error) {
		deploys.Add(1)
		return chain.DeployDepositFactory(ctx, e.rpc.Backend(), keyHex, chain.DevChainID)
	}
	got := make([]string, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			got[i], errs[i] = pgstore.ChainContract(ctx, e.pool, chain.DevChainID, chain.DepositFactoryName, deploy)
		})
	}
	wg.Wait()
	got[2], errs[2] = pgstore.ChainContract(ctx, e.pool, chain.DevChainID, chain.DepositFactoryName, deploy)
	for _, err := range errs {
		e.ok(err)
	}
	if deploys.Load() != 1 || got[0] != got[1] || got[1] != got[2] {
		t.Fatalf("%d deployments, addresses %v", deploys.Load(), got)
	}
	code, err := e.rpc.Backend().CodeAt(ctx, common.HexToAddress(got[0]), nil)
	if err != nil || len(code) == 0 {
		t.Fatalf("no factory code at %s: %v", got[0], err)
	}
}
