package chain

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain/contracts"
)

// DevChainID is the chain id of go-ethereum's simulated backend (fixed by go-ethereum).
const DevChainID = 1337

// What each development account is given at start.
var (
	DevAccountWei   = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18)) // 10,000 ETH
	DevAccountUnits = big.NewInt(100_000 * 1e6)                              // 100,000 of each 6-decimal token
)

// DevChainOptions configures StartDevChain; the zero value is usable.
type DevChainOptions struct {
	Port          int           // HTTP JSON-RPC port on 127.0.0.1; 0: a free port
	Accounts      int           // funded development accounts; 0: 3
	BlockInterval time.Duration // an empty block at least this often; 0: 2 s
}

// DevAccount is a generated account; its key exists only in this process.
type DevAccount struct {
	Address common.Address
	Key     *ecdsa.PrivateKey
}

// KeyHex is the private key as 64 hex characters (no 0x), the CHAIN_OPERATOR_KEY form.
func (a DevAccount) KeyHex() string { return hex.EncodeToString(crypto.FromECDSA(a.Key)) }

// DevChain is an in-process development chain: go-ethereum's simulated backend (a real EVM)
// serving JSON-RPC over HTTP on 127.0.0.1, with USDC and USDT test tokens, a spend-permission
// manager, an operator and funded accounts. Blocks are sealed when a transaction waits and at
// least every BlockInterval. Nothing is persisted: its state is lost when it stops.
type DevChain struct {
	URL                    string
	ChainID                uint64
	Operator               DevAccount
	Accounts               []DevAccount
	Tokens                 []Token
	SpendPermissionManager common.Address
	DepositFactory         common.Address // DEPOSIT_FACTORY (DESIGN 9), deployed at start

	backend  *simulated.Backend
	pool     *rpc.Client // the chain's own HTTP endpoint, for txpool_status
	stop     context.CancelFunc
	done     chan struct{}
	closeOne sync.Once
	mu       sync.Mutex // serializes sealing between the sealing loop and Commit
}

// HTTPOn is a simulated.NewBackend option that serves the chain's JSON-RPC (eth, net, web3) over
// HTTP on 127.0.0.1:port, so that wallets, scripts and the service reach it like a real node.
func HTTPOn(port int) func(*node.Config, *ethconfig.Config) {
	return func(n *node.Config, _ *ethconfig.Config) {
		n.HTTPHost = "127.0.0.1"
		n.HTTPPort = port
		// txpool: the development chain's sealing loop reads txpool_status to seal on demand.
		n.HTTPModules = []string{"eth", "net", "web3", "txpool"}
		n.HTTPVirtualHosts = []string{"localhost", "127.0.0.1"}
		// Browser wallets and dapp pages on any local origin may talk to a development node,
		// as with anvil or hardhat; no key lives in the node, so nothing can be signed by it.
		n.HTTPCors = []string{"*"}
	}
}

// FreePort returns a TCP port free on 127.0.0.1 at the time of the call.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// NewHTTPBackend starts a simulated backend serving HTTP on 127.0.0.1:port. go-ethereum panics
// when the node cannot start (a port in use); that is returned as an error here.
// Further options (simulated.WithBlockGasLimit, a bigger transaction pool) serve benchmarks.
func NewHTTPBackend(alloc types.GenesisAlloc, port int, opts ...func(*node.Config, *ethconfig.Config)) (b *simulated.Backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chain: starting the simulated node on 127.0.0.1:%d: %v", port, r)
		}
	}()
	return simulated.NewBackend(alloc, append([]func(*node.Config, *ethconfig.Config){HTTPOn(port)}, opts...)...), nil
}

// NewHTTPBackendOnFreePort is NewHTTPBackend on a port free at the time, and that port. Another
// process can take the port between the look and the node's bind (tests run side by side and
// CI caught it), so a bind that finds it taken is tried again on another, a few times.
func NewHTTPBackendOnFreePort(alloc types.GenesisAlloc, opts ...func(*node.Config, *ethconfig.Config)) (*simulated.Backend, int, error) {
	var err error
	for range 5 {
		var port int
		if port, err = FreePort(); err != nil {
			return nil, 0, err
		}
		var b *simulated.Backend
		if b, err = NewHTTPBackend(alloc, port, opts...); err == nil {
			return b, port, nil
		}
		if !strings.Contains(err.Error(), "address already in use") {
			return nil, 0, err
		}
	}
	return nil, 0, err
}

// StartDevChain starts a development chain and deploys its contracts; it runs until Close.
func StartDevChain(ctx context.Context, opts DevChainOptions) (*DevChain, error) {
	if opts.Accounts <= 0 {
		opts.Accounts = 3
	}
	if opts.BlockInterval <= 0 {
		opts.BlockInterval = 2 * time.Second
	}
	d := &DevChain{ChainID: DevChainID}
	alloc := types.GenesisAlloc{}
	var err error
	for i := 0; i <= opts.Accounts; i++ {
		a := DevAccount{}
		if a.Key, err = crypto.GenerateKey(); err != nil {
			return nil, err
		}
		a.Address = crypto.PubkeyToAddress(a.Key.PublicKey)
		alloc[a.Address] = types.Account{Balance: DevAccountWei}
		if i == 0 {
			d.Operator = a
		} else {
			d.Accounts = append(d.Accounts, a)
		}
	}
	port := opts.Port
	if port == 0 {
		d.backend, port, err = NewHTTPBackendOnFreePort(alloc)
	} else {
		d.backend, err = NewHTTPBackend(alloc, port)
	}
	if err != nil {
		return nil, err
	}
	d.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	if d.pool, err = rpc.DialContext(ctx, d.URL); err == nil {
		err = d.deploy(ctx)
	}
	if err != nil {
		if d.pool != nil {
			d.pool.Close()
		}
		_ = d.backend.Close()
		return nil, fmt.Errorf("chain: development chain: %w", err)
	}
	loop, stop := context.WithCancel(context.Background())
	d.stop, d.done = stop, make(chan struct{})
	go d.seal(loop, opts.BlockInterval)
	return d, nil
}

// ChargeOperator is the development operator's charging chain through r (the development
// chain's tokens and spend-permission manager), as serve builds it from CHAIN_OPERATOR_KEY.
func (d *DevChain) ChargeOperator(r *RPC) (*ChargeOperator, error) {
	return NewChargeOperator(d.Operator.KeyHex(), d.ChainID, r, d.Tokens, d.SpendPermissionManager.Hex())
}

// deploy deploys the tokens and the manager from the operator, then funds every account with
// both tokens. Gas is estimated for every transaction.
func (d *DevChain) deploy(ctx context.Context) error {
	c := d.backend.Client()
	auth, err := bind.NewKeyedTransactorWithChainID(d.Operator.Key, big.NewInt(DevChainID))
	if err != nil {
		return err
	}
	auth.Context = ctx
	// Nonces are counted here: the pool's pending nonce is updated on another goroutine, so
	// reading it between two quick sends can give the same nonce twice.
	auth.Nonce = new(big.Int)
	next := func() { auth.Nonce = new(big.Int).Add(auth.Nonce, big.NewInt(1)) }
	var txs []*types.Transaction
	for _, t := range []struct{ name, symbol string }{{"USD Coin", "USDC"}, {"Tether USD", "USDT"}} {
		a, tx, _, err := contracts.DeployTestToken(auth, c, t.name, t.symbol)
		if err != nil {
			return fmt.Errorf("deploying %s: %w", t.symbol, err)
		}
		d.Tokens, txs = append(d.Tokens, Token{Symbol: t.symbol, Address: a, Decimals: 6}), append(txs, tx)
		next()
	}
	a, tx, _, err := contracts.DeploySpendPermissionManager(auth, c)
	if err != nil {
		return fmt.Errorf("deploying the spend-permission manager: %w", err)
	}
	d.SpendPermissionManager, txs = a, append(txs, tx)
	next()
	if d.DepositFactory, tx, _, err = contracts.DeployDepositFactory(auth, c); err != nil {
		return fmt.Errorf("deploying the deposit factory: %w", err)
	}
	txs = append(txs, tx)
	next()
	if err := d.commitChecked(ctx, txs); err != nil {
		return err
	}
	txs = nil
	for _, t := range d.Tokens {
		tok, err := contracts.NewTestToken(t.Address, c)
		if err != nil {
			return err
		}
		for _, acct := range d.Accounts {
			tx, err := tok.Mint(auth, acct.Address, DevAccountUnits)
			if err != nil {
				return fmt.Errorf("minting %s: %w", t.Symbol, err)
			}
			txs = append(txs, tx)
			next()
		}
	}
	return d.commitChecked(ctx, txs)
}

// commitChecked seals a block and fails unless every transaction succeeded in it.
func (d *DevChain) commitChecked(ctx context.Context, txs []*types.Transaction) error {
	if err := WaitPoolSettled(ctx, d.pool); err != nil {
		return err
	}
	d.Commit()
	for _, tx := range txs {
		r, err := d.backend.Client().TransactionReceipt(ctx, tx.Hash())
		if err != nil {
			return fmt.Errorf("transaction %s: %w", tx.Hash(), err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			return fmt.Errorf("transaction %s reverted", tx.Hash())
		}
	}
	return nil
}

// WaitPoolSettled waits until the transaction pool behind c (which must serve the txpool API)
// has no queued transaction: a transaction just sent is queued first and made pending on the
// pool's own goroutine, and a block sealed in between would leave it out. A transaction with a
// nonce gap stays queued, so this gives up after 5 s.
func WaitPoolSettled(ctx context.Context, c *rpc.Client) error {
	return waitPool(ctx, c, 5*time.Second, func(st poolStatus) bool { return st.Queued == 0 })
}

// AdjustTime seals an empty block d later on b. The simulated backend refuses while its pool
// lists a transaction as pending, and the pool drops a mined one from that list on its own
// goroutine, after the new head reaches it (under load, some time after the block that mined it
// was sealed), so that refusal is retried until the pool has caught up, for at most 30 s. The
// backend's client exposes no RPC client to ask the pool, and its refusal is no exported error.
func AdjustTime(ctx context.Context, b *simulated.Backend, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		err := b.AdjustTime(d)
		if err == nil || !strings.Contains(err.Error(), "non-empty block") {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("adjust time: %w (%w)", err, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// WaitPoolEmpty waits until the pool behind c holds no pending and no queued transaction; it
// gives up after 10 s.
func WaitPoolEmpty(ctx context.Context, c *rpc.Client) error {
	return waitPool(ctx, c, 10*time.Second, func(st poolStatus) bool { return st.Pending == 0 && st.Queued == 0 })
}

type poolStatus struct{ Pending, Queued hexutil.Uint }

// waitPool polls txpool_status until done holds, for at most limit.
func waitPool(ctx context.Context, c *rpc.Client, limit time.Duration, done func(poolStatus) bool) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		var st poolStatus
		if err := c.CallContext(ctx, &st, "txpool_status"); err != nil {
			return fmt.Errorf("txpool_status: %w", err)
		}
		if done(st) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the pool still holds %d pending and %d queued transactions: %w", st.Pending, st.Queued, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// pollInterval is how often the sealing loop looks for waiting transactions: it bounds the delay
// between sending a transaction and seeing it mined.
const pollInterval = 100 * time.Millisecond

// seal commits a block whenever transactions wait, and an empty one every interval so that
// confirmations keep coming on an idle chain.
func (d *DevChain) seal(ctx context.Context, interval time.Duration) {
	defer close(d.done)
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// The simulated client's "pending" block does not show the pool; txpool_status does.
		var st struct{ Pending, Queued hexutil.Uint }
		err := d.pool.CallContext(ctx, &st, "txpool_status")
		if (err == nil && st.Pending > 0) || time.Since(last) >= interval {
			d.Commit()
			last = time.Now()
		}
	}
}

// Commit seals a block now (tests use it to move on without waiting).
func (d *DevChain) Commit() common.Hash {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.backend.Commit()
}

// Backend is the underlying simulated backend (Fork, AdjustTime, its in-process client).
func (d *DevChain) Backend() *simulated.Backend { return d.backend }

// Token returns the test token with symbol.
func (d *DevChain) Token(symbol string) (Token, bool) { return FindToken(d.Tokens, symbol) }

// Env is the configuration that points the service at this chain, as NAME=value lines.
func (d *DevChain) Env() []string {
	return []string{
		"ETH_RPC_URL=" + d.URL,
		"CHAIN_ID=" + strconv.FormatUint(d.ChainID, 10),
		"CHAIN_TOKENS=" + FormatTokens(d.Tokens),
		"CHAIN_OPERATOR_KEY=" + d.Operator.KeyHex(),
		"SPEND_PERMISSION_MANAGER=" + d.SpendPermissionManager.Hex(),
		"DEPOSIT_FACTORY=" + d.DepositFactory.Hex(),
	}
}

// Close stops sealing and the node; the chain's state is gone.
func (d *DevChain) Close() error {
	var err error
	d.closeOne.Do(func() {
		if d.stop != nil {
			d.stop()
			<-d.done
		}
		if d.pool != nil {
			d.pool.Close()
		}
		err = d.backend.Close()
	})
	if errors.Is(err, node.ErrNodeStopped) {
		return nil
	}
	return err
}
