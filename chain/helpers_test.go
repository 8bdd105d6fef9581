package chain_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
)

// env is a simulated chain (real EVM) with two 6-decimal test tokens, a 9,950/50 payment split
// and funded accounts: buyer and stranger hold 100 ETH and 1,000,000 of each token.
type env struct {
	t         *testing.T
	b         *simulated.Backend
	sim       simulated.Client
	rpc       *chain.RPC
	url       string
	chainID   *big.Int
	operator  *ecdsa.PrivateKey
	buyer     *ecdsa.PrivateKey
	stranger  *ecdsa.PrivateKey
	usdc      common.Address
	usdt      common.Address
	split     common.Address
	elsewhere common.Address // an address that is not the split
	nonces    map[common.Address]uint64
}

func eth(milli int64) *big.Int { return new(big.Int).Mul(big.NewInt(milli), big.NewInt(1e15)) }

func key(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func addr(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, operator: key(t), buyer: key(t), stranger: key(t), elsewhere: addr(key(t)), nonces: map[common.Address]uint64{}}
	alloc := types.GenesisAlloc{}
	for _, k := range []*ecdsa.PrivateKey{e.operator, e.buyer, e.stranger} {
		alloc[addr(k)] = types.Account{Balance: eth(100_000)}
	}
	// The chain serves HTTP so that the client under test speaks real JSON-RPC (with batches),
	// while the test drives blocks, forks and time through the backend.
	var port int
	var err error
	e.b, port, err = chain.NewHTTPBackendOnFreePort(alloc)
	e.ok(err)
	t.Cleanup(func() { _ = e.b.Close() })
	e.sim = e.b.Client()
	e.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	e.rpc, err = chain.Dial(context.Background(), e.url, chain.DevChainID)
	e.ok(err)
	t.Cleanup(e.rpc.Close)
	e.chainID = big.NewInt(chain.DevChainID)

	var tx1, tx2, tx3 *types.Transaction
	e.usdc, tx1, _, err = contracts.DeployTestToken(e.opts(e.operator), e.sim, "USD Coin", "USDC")
	e.ok(err)
	e.usdt, tx2, _, err = contracts.DeployTestToken(e.opts(e.operator), e.sim, "Tether USD", "USDT")
	e.ok(err)
	payees := []common.Address{addr(key(t)), addr(key(t))}
	e.split, tx3, _, err = contracts.DeployPaymentSplit(e.opts(e.operator), e.sim, payees, []*big.Int{big.NewInt(9950), big.NewInt(50)})
	e.ok(err)
	e.mined(tx1, tx2, tx3)
	var mints []*types.Transaction
	for _, tok := range []common.Address{e.usdc, e.usdt} {
		for _, k := range []*ecdsa.PrivateKey{e.buyer, e.stranger} {
			mints = append(mints, e.sent(e.token(tok).Mint(e.opts(e.operator), addr(k), big.NewInt(1e12))))
		}
	}
	e.mined(mints...)
	return e
}

func (e *env) ok(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// opts signs with k's next nonce; GasLimit stays 0, so gas is estimated. The test counts nonces
// because the pool updates its pending nonce on another goroutine: two quick sends reading it
// could get the same one.
func (e *env) opts(k *ecdsa.PrivateKey) *bind.TransactOpts {
	e.t.Helper()
	o, err := bind.NewKeyedTransactorWithChainID(k, e.chainID)
	e.ok(err)
	o.Context = context.Background()
	o.Nonce = new(big.Int).SetUint64(e.nonces[o.From])
	e.nonces[o.From]++
	return o
}

func (e *env) token(a common.Address) *contracts.TestToken {
	e.t.Helper()
	tok, err := contracts.NewTestToken(a, e.sim)
	e.ok(err)
	return tok
}

func (e *env) sent(tx *types.Transaction, err error) *types.Transaction {
	e.t.Helper()
	e.ok(err)
	return tx
}

// commit seals a block once the pool has taken in every transaction sent: the pool promotes a
// new transaction on its own goroutine, and a block sealed before that would leave it out.
func (e *env) commit() common.Hash {
	e.t.Helper()
	e.ok(chain.WaitPoolSettled(context.Background(), e.rpc.Backend().Client()))
	return e.b.Commit()
}

// mined commits a block and fails unless every tx succeeded in it.
func (e *env) mined(txs ...*types.Transaction) {
	e.t.Helper()
	e.commit()
	for _, tx := range txs {
		r, err := e.sim.TransactionReceipt(context.Background(), tx.Hash())
		e.ok(err)
		if r.Status != types.ReceiptStatusSuccessful {
			e.t.Fatalf("tx %s reverted", tx.Hash())
		}
	}
}

// payToken sends (without mining) a transfer of units of token from k to to.
func (e *env) payToken(token common.Address, k *ecdsa.PrivateKey, to common.Address, units int64) *types.Transaction {
	e.t.Helper()
	return e.sent(e.token(token).Transfer(e.opts(k), to, big.NewInt(units)))
}

// payETH sends (without mining) a plain transfer of wei from k to to, gas estimated.
func (e *env) payETH(k *ecdsa.PrivateKey, to common.Address, wei *big.Int) *types.Transaction {
	e.t.Helper()
	o := e.opts(k)
	o.Value = wei
	return e.sent(chain.SendETH(o, e.sim, to))
}
