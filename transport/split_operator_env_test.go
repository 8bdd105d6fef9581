package transport

import (
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// newOperatorEnv is the service as serve builds it on a development chain whose operator pays
// for split deployments (Chain.Operator and Chain.SplitOperator), with mutate's deps; the chain
// is closed when the test ends.
func newOperatorEnv(t *testing.T, mutate func(*testDeps)) (*env, *chain.DevChain) {
	t.Helper()
	dev, rpc := dialDevChain(t, 200*time.Millisecond)
	e := newAppEnv(t, func(c *app.Config) {
		op, err := chain.NewOperator(dev.Operator.KeyHex(), chain.DevChainID, rpc.Backend(), dev.Tokens)
		if err != nil {
			t.Fatal(err)
		}
		c.Chain.Operator, c.Chain.SplitOperator = op, settlement.NewOperatorSender(op, pgstore.NewOperatorTransactions(c.Pool))
	}, mutate, nil)
	return e, dev
}

// dialDevChain starts a development chain with one funded account besides its operator, sealing
// every interval, and dials it; both are closed when the test ends.
func dialDevChain(t *testing.T, interval time.Duration) (*chain.DevChain, *chain.RPC) {
	t.Helper()
	ctx := context.Background()
	dev, err := chain.StartDevChain(ctx, chain.DevChainOptions{BlockInterval: interval, Accounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	rpc, err := chain.Dial(ctx, dev.URL, chain.DevChainID)
	if err != nil {
		_ = dev.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { rpc.Close(); _ = dev.Close() })
	return dev, rpc
}
