package chain_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/payledger/payledger/chain"
)

// burnerCode is the creation code of a contract whose every call loops until its gas runs out:
// it returns the runtime code JUMPDEST PUSH1 0 JUMP (0x5b600056).
var burnerCode = common.FromHex("0x635b6000566000526004601cf3")

// Stop 63: a merchant's split address is any contract, and its payees were read with eth_calls
// given no gas: a contract whose totalShares, payee or shares burns gas ran each call to the
// node's RPC gas cap (50,000,000), up to 2×MaxRecipients+3 calls per configuration request, sent
// again at will. Each read now has SplitReadGasCeiling, and a contract that needs more does not
// answer as a splitter (400), rather than the node's failure (503).
func TestSplitPayeesOfABurningContractAreReadWithACeiling(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	burner, tx, _, err := bind.DeployContract(e.opts(e.operator), abi.ABI{}, burnerCode, e.sim)
	e.ok(err)
	e.mined(tx)
	var mu sync.Mutex
	var gases []string
	c := nodeProxy(t, e.url, func(_ http.ResponseWriter, _ *http.Request, body []byte, _ http.Handler) bool {
		var q struct {
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &q) == nil && q.Method == "eth_call" && len(q.Params) > 0 {
			var call struct {
				Gas string `json:"gas"`
			}
			_ = json.Unmarshal(q.Params[0], &call)
			mu.Lock()
			gases = append(gases, call.Gas)
			mu.Unlock()
		}
		return false
	})
	op, err := chain.NewOperator("", chain.DevChainID, c.Backend(), nil)
	e.ok(err)
	payees, _, ok, err := op.SplitPayees(ctx, burner.Hex(), 10)
	if err != nil || ok {
		t.Fatalf("a burning contract read as a splitter: %v %v %v; want not one", payees, ok, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(gases) == 0 {
		t.Fatal("no eth_call seen")
	}
	for _, g := range gases {
		if n, err := hexutil.DecodeUint64(g); err != nil || n > chain.SplitReadGasCeiling {
			t.Fatalf("an eth_call of the split with gas %q; want at most %d", g, chain.SplitReadGasCeiling)
		}
	}
}
