package contracts_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"

	"github.com/payledger/payledger/chain/contracts"
)

// blockGasLimit is a realistic block gas limit for the deposit tests and benchmark; Osaka's
// per-transaction cap (EIP-7825, 2^24 gas) binds a sweep before it does.
const (
	blockGasLimit = 30_000_000
	txGasCap      = 1 << 24
)

// osakaRules runs the simulated chain on mainnet's rules of today (Osaka, "Fusaka": 2^24 gas a
// transaction): the simulated backend's default also enables forks to come (Amsterdam's state-gas
// metering and state-access repricing, EIP-8037/8038), under which creating state costs several
// times what it does on mainnet now.
func osakaRules(_ *node.Config, ec *ethconfig.Config) {
	cfg := *ec.Genesis.Config
	cfg.AmsterdamTime, cfg.BogotaTime = nil, nil
	ec.Genesis.Config = &cfg
}

// depositEnv is a simulated chain (real EVM, Osaka rules, 30M gas blocks) with a DepositFactory,
// two 6-decimal tokens, a 9,950/50 PaymentSplit as the split, and funded accounts: the operator
// (deployer of everything), a payer holding tokens, and a stranger.
type depositEnv struct {
	*chain
	operator, payer, stranger *ecdsa.PrivateKey
	factoryAddr               common.Address
	factory                   *contracts.DepositFactory
	usdcAddr, usdtAddr        common.Address
	usdc, usdt                *contracts.TestToken
	split                     common.Address
}

func newDepositEnv(tb testing.TB) *depositEnv {
	tb.Helper()
	return newDepositEnvRules(tb, osakaRules)
}

// newDepositEnvRules is newDepositEnv on the chain rules that rules sets (nil: the simulated
// backend's default, every fork it knows).
func newDepositEnvRules(tb testing.TB, rules func(*node.Config, *ethconfig.Config)) *depositEnv {
	tb.Helper()
	e := &depositEnv{operator: newKey(tb), payer: newKey(tb), stranger: newKey(tb)}
	alloc := types.GenesisAlloc{}
	for _, k := range []*ecdsa.PrivateKey{e.operator, e.payer, e.stranger} {
		alloc[addr(k)] = types.Account{Balance: eth(100_000)}
	}
	opts := []func(*node.Config, *ethconfig.Config){simulated.WithBlockGasLimit(blockGasLimit)}
	if rules != nil {
		opts = append(opts, rules)
	}
	b := simulated.NewBackend(alloc, opts...)
	tb.Cleanup(func() { _ = b.Close() })
	id, err := b.Client().ChainID(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	e.chain = &chain{t: tb, backend: b, client: b.Client(), chainID: id}

	var tx *types.Transaction
	e.factoryAddr, tx, e.factory, err = contracts.DeployDepositFactory(e.opts(e.operator), e.client)
	e.mined(tx, err)
	e.usdcAddr, e.usdc = e.deployToken(e.operator)
	e.usdtAddr, e.usdt = e.deployToken(e.operator)
	payees := []common.Address{addr(newKey(tb)), addr(newKey(tb))}
	e.split, tx, _, err = contracts.DeployPaymentSplit(e.opts(e.operator), e.client, payees, []*big.Int{big.NewInt(9950), big.NewInt(50)})
	e.mined(tx, err)
	e.mined(e.usdc.Mint(e.opts(e.operator), addr(e.payer), big.NewInt(1e15)))
	e.mined(e.usdt.Mint(e.opts(e.operator), addr(e.payer), big.NewInt(1e15)))
	return e
}

// receiptKey is a receipt key as the service derives it (keccak256 of the id).
func receiptKey(id string) [32]byte { return crypto.Keccak256Hash([]byte(id)) }

// depositOf is the factory's view of the deposit address of (key, split).
func (e *depositEnv) depositOf(key [32]byte, split common.Address) common.Address {
	e.t.Helper()
	d, err := e.factory.DepositAddress(nil, key, split)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// deposit binds the Deposit ABI at a (deployed or not) address.
func (e *depositEnv) deposit(a common.Address) *contracts.Deposit {
	e.t.Helper()
	d, err := contracts.NewDeposit(a, e.client)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// sendETH sends wei from k to to as a wallet does: a plain transfer, no data, gas estimated (21,000
// to an address without code). Not mined.
func (e *depositEnv) sendETH(k *ecdsa.PrivateKey, to common.Address, wei *big.Int, nonce uint64) *types.Transaction {
	e.t.Helper()
	ctx := context.Background()
	gas, err := e.client.EstimateGas(ctx, ethereum.CallMsg{From: addr(k), To: &to, Value: wei})
	if err != nil {
		e.t.Fatalf("estimate ETH transfer to %s: %v", to, err)
	}
	head, err := e.client.HeaderByNumber(ctx, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), big.NewInt(1e9))
	tx, err := types.SignNewTx(k, types.LatestSignerForChainID(e.chainID), &types.DynamicFeeTx{
		ChainID: e.chainID, Nonce: nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: feeCap, Gas: gas, To: &to, Value: wei,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.client.SendTransaction(ctx, tx); err != nil {
		e.t.Fatalf("send ETH: %v", err)
	}
	return tx
}

func (e *depositEnv) nonce(k *ecdsa.PrivateKey) uint64 {
	e.t.Helper()
	n, err := e.client.PendingNonceAt(context.Background(), addr(k))
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// payETH sends wei from k to to and mines it, returning the receipt.
func (e *depositEnv) payETH(k *ecdsa.PrivateKey, to common.Address, wei *big.Int) *types.Receipt {
	e.t.Helper()
	return e.minedAll(e.sendETH(k, to, wei, e.nonce(k)))[0]
}

// minedAll commits blocks until every transaction is mined (the pool promotes transactions sent
// with consecutive nonces on its own goroutine, so one block may not hold them all yet) and fails
// unless each succeeded.
func (e *depositEnv) minedAll(txs ...*types.Transaction) []*types.Receipt {
	e.t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	rs := make([]*types.Receipt, len(txs))
	for missing := len(txs); missing > 0; {
		if time.Now().After(deadline) {
			e.t.Fatalf("%d of %d transactions not mined", missing, len(txs))
		}
		e.backend.Commit()
		missing = 0
		for i, tx := range txs {
			if rs[i] != nil {
				continue
			}
			if r, err := e.client.TransactionReceipt(ctx, tx.Hash()); err == nil {
				rs[i] = r
			} else {
				missing++
			}
		}
		if missing > 0 {
			time.Sleep(2 * time.Millisecond) // let the pool promote the rest
		}
	}
	for i, r := range rs {
		if r.Status != types.ReceiptStatusSuccessful {
			e.t.Fatalf("transaction %d (%s) reverted (gas %d of %d)", i, txs[i].Hash(), r.GasUsed, txs[i].Gas())
		}
	}
	return rs
}

// fundDeposits mints units of token to each of n new deposits of the split (receipt ids
// prefix-0, prefix-1, ...), plus weiEach ETH from the payer to every third one when weiEach is
// not nil, all mined. It returns the deposits' keys.
func (e *depositEnv) fundDeposits(prefix string, n int, token *contracts.TestToken, units int64, weiEach *big.Int) []contracts.DepositFactoryDepositKey {
	e.t.Helper()
	keys := make([]contracts.DepositFactoryDepositKey, n)
	var txs []*types.Transaction
	opNonce, payerNonce := e.nonce(e.operator), e.nonce(e.payer)
	mintGas := e.mintGas(token, units)
	for i := range keys {
		keys[i] = contracts.DepositFactoryDepositKey{ReceiptId: receiptKey(prefix + "-" + itoa(i)), Split: e.split}
		d := e.depositOf(keys[i].ReceiptId, e.split)
		o := e.opts(e.operator)
		o.Nonce = new(big.Int).SetUint64(opNonce)
		o.GasLimit = mintGas // no estimate against a pending state the pool has not settled yet
		opNonce++
		tx, err := token.Mint(o, d, big.NewInt(units))
		if err != nil {
			e.t.Fatal(err)
		}
		txs = append(txs, tx)
		if weiEach != nil && i%3 == 0 {
			txs = append(txs, e.sendETH(e.payer, d, weiEach, payerNonce))
			payerNonce++
		}
	}
	e.minedAll(txs...)
	return keys
}

// mintGas is the gas of a mint of units of token to a new holder, estimated, with a margin.
func (e *depositEnv) mintGas(token *contracts.TestToken, units int64) uint64 {
	e.t.Helper()
	o := e.opts(e.operator)
	o.NoSend = true
	tx, err := token.Mint(o, addr(newKey(e.t)), big.NewInt(units))
	if err != nil {
		e.t.Fatal(err)
	}
	return tx.Gas() * 5 / 4
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// sweep sends factory.sweep from k with the gas estimated and returns its receipt.
func (e *depositEnv) sweep(k *ecdsa.PrivateKey, keys []contracts.DepositFactoryDepositKey, tokens ...common.Address) *types.Receipt {
	e.t.Helper()
	tx, err := e.factory.Sweep(e.opts(k), keys, tokens)
	if err != nil {
		e.t.Fatalf("sweep: %v", err)
	}
	return e.minedAll(tx)[0]
}

// swept are the Swept events of r (from any deposit), and failed its SweepFailed events.
func (e *depositEnv) sweptAndFailed(r *types.Receipt) (swept []*contracts.DepositSwept, failed []*contracts.DepositFactorySweepFailed) {
	e.t.Helper()
	depFilterer, err := contracts.NewDepositFilterer(common.Address{}, e.client)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, l := range r.Logs {
		if ev, err := depFilterer.ParseSwept(*l); err == nil && l.Address != e.factoryAddr {
			swept = append(swept, ev)
		}
		if l.Address == e.factoryAddr {
			if ev, err := e.factory.ParseSweepFailed(*l); err == nil {
				failed = append(failed, ev)
			}
		}
	}
	return swept, failed
}

// errorName decodes revert data with meta's custom errors ("" when none matches).
func errorName(t testing.TB, meta *bind.MetaData, data []byte) string {
	t.Helper()
	parsed, err := meta.GetAbi()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 4 {
		return ""
	}
	for name, e := range parsed.Errors {
		if string(e.ID[:4]) == string(data[:4]) {
			return name
		}
	}
	return ""
}

// pack encodes a call of method with args in meta's ABI.
func pack(t testing.TB, meta *bind.MetaData, method string, args ...any) []byte {
	t.Helper()
	parsed, err := meta.GetAbi()
	if err != nil {
		t.Fatal(err)
	}
	data, err := parsed.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
