package settlement_test

import (
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

// Stop 62: ETH_RPC_URL swapped, behind a running detector, for a node of another chain (same
// CHAIN_ID, another genesis: a reset testnet, a provider's misrouting). Its first new block is no
// child of the cursor's block, which looked like a reorg: the detector read again from a few
// blocks before its cursor on the other chain and credited what it found there (ETH worth nothing
// paid a receipt). It now reads the genesis again on such a step and stops with ErrOtherChain,
// crediting nothing, step after step.
func TestDepositNodeSwappedForAnotherChainCreditsNothing(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	r := e.receipt(1000)
	e.quote(r.Receipt.ReceiptID, "0.01000000")
	d := e.detector()
	e.step(d)

	// Another chain: its own genesis (another allocation), the same chain id, more blocks.
	k := depositKey(t)
	alloc := types.GenesisAlloc{crypto.PubkeyToAddress(k.PublicKey): {Balance: new(big.Int).Mul(big.NewInt(1e6), big.NewInt(1e18))}}
	b, port, err := chain.NewHTTPBackendOnFreePort(alloc)
	e.ok(err)
	t.Cleanup(func() { _ = b.Close() })
	other, err := chain.Dial(e.ctx, fmt.Sprintf("http://127.0.0.1:%d", port), chain.DevChainID)
	e.ok(err)
	t.Cleanup(other.Close)
	signer := types.LatestSignerForChainID(big.NewInt(chain.DevChainID))
	to := common.HexToAddress(r.DepositAddress())
	tx := types.MustSignNewTx(k, signer, &types.DynamicFeeTx{ChainID: big.NewInt(chain.DevChainID), Nonce: 0, GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(1e10), Gas: 21000, To: &to, Value: big.NewInt(1e16)})
	e.ok(b.Client().SendTransaction(e.ctx, tx))
	for range 12 {
		b.Commit()
	}

	d.Chain = chain.DepositScanner{RPC: other, Tokens: e.tokens}
	for range 2 {
		if _, err := d.Step(e.ctx); !errors.Is(err, settlement.ErrOtherChain) {
			t.Fatalf("a step on a node of another chain: %v, want ErrOtherChain", err)
		}
	}
	e.synced()
	e.want(r.Receipt.ReceiptID, receipt.StatusGenerated, "")
}
