package contracts_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	paychain "github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
)

// chain is a simulated chain with funded accounts.
type chain struct {
	t       testing.TB
	backend *simulated.Backend
	client  simulated.Client
	chainID *big.Int
}

func eth(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func addr(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// newChain starts a simulated chain where every key holds 100 ETH.
func newChain(t *testing.T, keys ...*ecdsa.PrivateKey) *chain {
	t.Helper()
	alloc := types.GenesisAlloc{}
	for _, k := range keys {
		alloc[addr(k)] = types.Account{Balance: eth(100)}
	}
	b := simulated.NewBackend(alloc)
	t.Cleanup(func() { _ = b.Close() })
	id, err := b.Client().ChainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &chain{t: t, backend: b, client: b.Client(), chainID: id}
}

// opts signs with key; GasLimit stays 0, so every transaction's gas is estimated.
func (c *chain) opts(key *ecdsa.PrivateKey) *bind.TransactOpts {
	c.t.Helper()
	o, err := bind.NewKeyedTransactorWithChainID(key, c.chainID)
	if err != nil {
		c.t.Fatal(err)
	}
	o.Context = context.Background()
	return o
}

// mined seals a block and returns the transaction's receipt, failing unless it succeeded.
func (c *chain) mined(tx *types.Transaction, err error) *types.Receipt {
	c.t.Helper()
	if err != nil {
		c.t.Fatalf("send: %v", err)
	}
	c.backend.Commit()
	r, err := bind.WaitMined(context.Background(), c.client, tx)
	if err != nil {
		c.t.Fatalf("wait mined: %v", err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		c.t.Fatalf("transaction %s reverted", tx.Hash())
	}
	return r
}

// adjustTime seals an empty block d later, once the pool has dropped what was mined.
func (c *chain) adjustTime(d time.Duration) {
	c.t.Helper()
	if err := paychain.AdjustTime(context.Background(), c.backend, d); err != nil {
		c.t.Fatalf("adjust time: %v", err)
	}
}

func (c *chain) ethBalance(a common.Address) *big.Int {
	c.t.Helper()
	b, err := c.client.BalanceAt(context.Background(), a, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

func (c *chain) deployToken(owner *ecdsa.PrivateKey) (common.Address, *contracts.TestToken) {
	c.t.Helper()
	a, tx, tok, err := contracts.DeployTestToken(c.opts(owner), c.client, "USD Coin", "USDC")
	c.mined(tx, err)
	return a, tok
}

func tokenBalance(t testing.TB, tok *contracts.TestToken, a common.Address) *big.Int {
	t.Helper()
	b, err := tok.BalanceOf(nil, a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantBig(t testing.TB, what string, got *big.Int, want *big.Int) {
	t.Helper()
	if got.Cmp(want) != 0 {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

// revertName is the name of the custom error an estimate or call reverted with, decoded with
// meta's ABI, or "" when err carries no known custom error.
func revertName(t testing.TB, meta *bind.MetaData, err error) string {
	t.Helper()
	var de rpc.DataError
	if !errors.As(err, &de) {
		return ""
	}
	s, _ := de.ErrorData().(string)
	data, derr := hexutil.Decode(s)
	if derr != nil || len(data) < 4 {
		return ""
	}
	parsed, aerr := meta.GetAbi()
	if aerr != nil {
		t.Fatal(aerr)
	}
	for name, e := range parsed.Errors {
		if string(e.ID[:4]) == string(data[:4]) {
			return name
		}
	}
	if reason, uerr := abi.UnpackRevert(data); uerr == nil {
		return reason
	}
	return ""
}

func TestPaymentSplitReleasesByBasisPoints(t *testing.T) {
	operator, payer, merchant, platform := newKey(t), newKey(t), newKey(t), newKey(t)
	c := newChain(t, operator, payer)
	ctx := context.Background()

	tokenAddr, tok := c.deployToken(operator)
	payees := []common.Address{addr(merchant), addr(platform)}
	splitAddr, tx, split, err := contracts.DeployPaymentSplit(c.opts(operator), c.client, payees, []*big.Int{big.NewInt(9950), big.NewInt(50)})
	c.mined(tx, err)

	// Shares that are not basis points are refused at deployment.
	_, _, _, err = contracts.DeployPaymentSplit(c.opts(operator), c.client, payees, []*big.Int{big.NewInt(9950), big.NewInt(49)})
	if err == nil {
		t.Fatal("deploying a split whose shares sum to 9,999 did not fail")
	} else if name := revertName(t, contracts.PaymentSplitMetaData, err); name != "SharesNotBasisPoints" {
		t.Errorf("deploy with 9,999 basis points: %v (revert %q), want SharesNotBasisPoints", err, name)
	}

	// The payer pays 1,000,000 base units of the token and 1 ETH into the split.
	c.mined(tok.Mint(c.opts(operator), addr(payer), big.NewInt(1_000_000)))
	c.mined(tok.Transfer(c.opts(payer), splitAddr, big.NewInt(1_000_000)))
	pay := c.opts(payer)
	pay.Value = eth(1)
	c.mined(split.Receive(pay))

	due, err := split.Releasable0(nil, tokenAddr, addr(merchant))
	if err != nil {
		t.Fatal(err)
	}
	wantBig(t, "releasable(token, merchant)", due, big.NewInt(995_000))
	due, err = split.Releasable(nil, addr(platform))
	if err != nil {
		t.Fatal(err)
	}
	wantBig(t, "releasable(platform) wei", due, big.NewInt(5e15))

	// The operator releases every payee's due, token and ETH.
	merchantETH, platformETH := c.ethBalance(addr(merchant)), c.ethBalance(addr(platform))
	r := c.mined(split.Release0(c.opts(operator), tokenAddr, addr(merchant)))
	t.Logf("release(token, account) gas used: %d", r.GasUsed)
	if len(r.Logs) != 2 { // Transfer + ERC20PaymentReleased
		t.Errorf("release(token, merchant): %d logs, want 2", len(r.Logs))
	}
	for _, l := range r.Logs {
		if ev, err := split.ParseERC20PaymentReleased(*l); err == nil {
			if ev.Token != tokenAddr || ev.To != addr(merchant) || ev.Amount.Cmp(big.NewInt(995_000)) != 0 {
				t.Errorf("ERC20PaymentReleased = %+v", ev)
			}
		}
	}
	c.mined(split.Release0(c.opts(operator), tokenAddr, addr(platform)))
	r = c.mined(split.Release(c.opts(operator), addr(merchant)))
	t.Logf("release(account) (ETH) gas used: %d", r.GasUsed)
	c.mined(split.Release(c.opts(operator), addr(platform)))

	wantBig(t, "merchant token balance", tokenBalance(t, tok, addr(merchant)), big.NewInt(995_000))
	wantBig(t, "platform token balance", tokenBalance(t, tok, addr(platform)), big.NewInt(5_000))
	wantBig(t, "split token balance", tokenBalance(t, tok, splitAddr), big.NewInt(0))
	wantBig(t, "merchant ETH gained", new(big.Int).Sub(c.ethBalance(addr(merchant)), merchantETH), big.NewInt(995e15))
	wantBig(t, "platform ETH gained", new(big.Int).Sub(c.ethBalance(addr(platform)), platformETH), big.NewInt(5e15))
	splitETH, err := c.client.BalanceAt(ctx, splitAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantBig(t, "split ETH balance", splitETH, big.NewInt(0))

	// Nothing is due any more: both releases revert (the estimate fails, nothing is sent).
	if _, err := split.Release0(c.opts(operator), tokenAddr, addr(merchant)); err == nil {
		t.Error("release(token, merchant) with nothing due did not revert")
	} else if name := revertName(t, contracts.PaymentSplitMetaData, err); name != "PaymentSplitter: account is not due payment" {
		t.Errorf("release(token, merchant) with nothing due: %v (revert %q)", err, name)
	}
	if _, err := split.Release(c.opts(operator), addr(platform)); err == nil {
		t.Error("release(platform) with nothing due did not revert")
	}
}

// spendPermissionTypedData is the EIP-712 document a wallet signs to approve p
// (eth_signTypedData_v4): Coinbase's SpendPermission in the "Spend Permission Manager" domain.
func spendPermissionTypedData(chainID *big.Int, manager common.Address, p contracts.SpendPermissionManagerSpendPermission) apitypes.TypedData {
	dec := func(n *big.Int) *math.HexOrDecimal256 { return (*math.HexOrDecimal256)(n) }
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {
				{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"},
			},
			"SpendPermission": {
				{Name: "account", Type: "address"}, {Name: "spender", Type: "address"},
				{Name: "token", Type: "address"}, {Name: "allowance", Type: "uint160"},
				{Name: "period", Type: "uint48"}, {Name: "start", Type: "uint48"},
				{Name: "end", Type: "uint48"}, {Name: "salt", Type: "uint256"},
				{Name: "extraData", Type: "bytes"},
			},
		},
		PrimaryType: "SpendPermission",
		Domain: apitypes.TypedDataDomain{
			Name: "Spend Permission Manager", Version: "1",
			ChainId: dec(chainID), VerifyingContract: manager.Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"account":   p.Account.Hex(),
			"spender":   p.Spender.Hex(),
			"token":     p.Token.Hex(),
			"allowance": dec(p.Allowance),
			"period":    dec(p.Period),
			"start":     dec(p.Start),
			"end":       dec(p.End),
			"salt":      dec(p.Salt),
			"extraData": hexutil.Encode(p.ExtraData),
		},
	}
}

// signTypedData signs td as a wallet does: 65 bytes r||s||v with v 27 or 28.
func signTypedData(t *testing.T, key *ecdsa.PrivateKey, td apitypes.TypedData) (hash, sig []byte) {
	t.Helper()
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err = crypto.Sign(hash, key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return hash, sig
}

func TestSpendPermissionSignedApprovalAndPeriodicSpend(t *testing.T) {
	operator, customer, stranger := newKey(t), newKey(t), newKey(t)
	c := newChain(t, operator, customer, stranger)
	ctx := context.Background()

	tokenAddr, tok := c.deployToken(operator)
	managerAddr, tx, manager, err := contracts.DeploySpendPermissionManager(c.opts(operator), c.client)
	c.mined(tx, err)

	// The customer holds 100 USDC and lets the manager move them (ERC-20 approve).
	c.mined(tok.Mint(c.opts(operator), addr(customer), big.NewInt(100_000_000)))
	c.mined(tok.Approve(c.opts(customer), managerAddr, abi.MaxUint256))

	head, err := c.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const period = 30 * 24 * 3600
	perm := contracts.SpendPermissionManagerSpendPermission{
		Account:   addr(customer),
		Spender:   addr(operator),
		Token:     tokenAddr,
		Allowance: big.NewInt(10_000_000), // 10 USDC a period
		Period:    big.NewInt(period),
		Start:     new(big.Int).SetUint64(head.Time),
		End:       new(big.Int).SetUint64(head.Time + 365*24*3600),
		Salt:      big.NewInt(42),
		ExtraData: []byte{},
	}

	hash, sig := signTypedData(t, customer, spendPermissionTypedData(c.chainID, managerAddr, perm))
	onChain, err := manager.GetHash(nil, perm)
	if err != nil {
		t.Fatal(err)
	}
	if common.BytesToHash(hash) != onChain {
		t.Fatalf("Go EIP-712 hash %x != contract getHash %x", hash, onChain)
	}

	// A signature by anyone but the account is refused.
	_, badSig := signTypedData(t, stranger, spendPermissionTypedData(c.chainID, managerAddr, perm))
	if _, err := manager.ApproveWithSignature(c.opts(operator), perm, badSig); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "InvalidSignature" {
		t.Errorf("approveWithSignature with a stranger's signature: %v, want InvalidSignature", err)
	}
	// Spending before approval is refused.
	if _, err := manager.Spend(c.opts(operator), perm, big.NewInt(1)); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "UnauthorizedSpendPermission" {
		t.Errorf("spend before approval: %v, want UnauthorizedSpendPermission", err)
	}

	// The operator (spender) submits the customer's signature.
	r := c.mined(manager.ApproveWithSignature(c.opts(operator), perm, sig))
	t.Logf("approveWithSignature gas used: %d", r.GasUsed)
	if len(r.Logs) != 1 {
		t.Fatalf("approveWithSignature: %d logs, want 1", len(r.Logs))
	}
	approved, err := manager.ParseSpendPermissionApproved(*r.Logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if approved.Hash != onChain || approved.SpendPermission.Account != addr(customer) {
		t.Errorf("SpendPermissionApproved = %+v", approved)
	}
	if ok, err := manager.IsValid(nil, perm); err != nil || !ok {
		t.Fatalf("isValid after approval = %v, %v", ok, err)
	}

	// A spend within the allowance moves exactly that amount, customer -> spender.
	r = c.mined(manager.Spend(c.opts(operator), perm, big.NewInt(6_000_000)))
	t.Logf("spend gas used: %d", r.GasUsed)
	wantBig(t, "customer balance", tokenBalance(t, tok, addr(customer)), big.NewInt(94_000_000))
	wantBig(t, "operator balance", tokenBalance(t, tok, addr(operator)), big.NewInt(6_000_000))
	var used *contracts.SpendPermissionManagerSpendPermissionUsed
	for _, l := range r.Logs {
		if ev, err := manager.ParseSpendPermissionUsed(*l); err == nil {
			used = ev
		}
	}
	if used == nil {
		t.Fatal("spend emitted no SpendPermissionUsed")
	}
	if used.Hash != onChain || used.Account != addr(customer) || used.Spender != addr(operator) || used.Token != tokenAddr ||
		used.PeriodSpend.Spend.Int64() != 6_000_000 || used.PeriodSpend.Start.Cmp(perm.Start) != 0 ||
		used.PeriodSpend.End.Uint64() != perm.Start.Uint64()+period {
		t.Errorf("SpendPermissionUsed = %+v (period %+v)", used, used.PeriodSpend)
	}
	cur, err := manager.GetCurrentPeriod(nil, perm)
	if err != nil {
		t.Fatal(err)
	}
	wantBig(t, "current period spend", cur.Spend, big.NewInt(6_000_000))

	// 6 + 5 > 10 in one period: refused.
	if _, err := manager.Spend(c.opts(operator), perm, big.NewInt(5_000_000)); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "ExceededSpendPermission" {
		t.Errorf("spend over the period's allowance: %v, want ExceededSpendPermission", err)
	}
	// Only the spender may spend.
	if _, err := manager.Spend(c.opts(stranger), perm, big.NewInt(1)); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "InvalidSender" {
		t.Errorf("spend by a stranger: %v, want InvalidSender", err)
	}
	if _, err := manager.Spend(c.opts(customer), perm, big.NewInt(1)); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "InvalidSender" {
		t.Errorf("spend by the account: %v, want InvalidSender", err)
	}

	// The next period has a fresh allowance.
	c.adjustTime(period * time.Second)
	c.mined(manager.Spend(c.opts(operator), perm, big.NewInt(5_000_000)))
	c.mined(manager.Spend(c.opts(operator), perm, big.NewInt(5_000_000)))
	wantBig(t, "customer balance", tokenBalance(t, tok, addr(customer)), big.NewInt(84_000_000))
	wantBig(t, "operator balance", tokenBalance(t, tok, addr(operator)), big.NewInt(16_000_000))
	cur, err = manager.GetCurrentPeriod(nil, perm)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Start.Uint64() != perm.Start.Uint64()+period || cur.Spend.Int64() != 10_000_000 {
		t.Errorf("second period = %+v, want start %d, spend 10000000", cur, perm.Start.Uint64()+period)
	}

	// Only the account may revoke; after revocation nothing more is spent.
	if _, err := manager.Revoke(c.opts(operator), perm); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "InvalidSender" {
		t.Errorf("revoke by the spender through revoke(): %v, want InvalidSender", err)
	}
	c.adjustTime(period * time.Second)
	c.mined(manager.Revoke(c.opts(customer), perm))
	if ok, err := manager.IsRevoked(nil, perm); err != nil || !ok {
		t.Errorf("isRevoked after revoke = %v, %v", ok, err)
	}
	if _, err := manager.Spend(c.opts(operator), perm, big.NewInt(1)); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "UnauthorizedSpendPermission" {
		t.Errorf("spend after revoke: %v, want UnauthorizedSpendPermission", err)
	}
	// A revoked permission cannot be approved again (approveWithSignature succeeds but returns false).
	c.mined(manager.ApproveWithSignature(c.opts(operator), perm, sig))
	if ok, err := manager.IsValid(nil, perm); err != nil || ok {
		t.Errorf("isValid after revoke = %v, %v", ok, err)
	}
	wantBig(t, "customer balance", tokenBalance(t, tok, addr(customer)), big.NewInt(84_000_000))
}

func TestSpendPermissionDirectApproveAndWindow(t *testing.T) {
	operator, customer := newKey(t), newKey(t)
	c := newChain(t, operator, customer)
	ctx := context.Background()
	tokenAddr, tok := c.deployToken(operator)
	managerAddr, tx, manager, err := contracts.DeploySpendPermissionManager(c.opts(operator), c.client)
	c.mined(tx, err)
	c.mined(tok.Mint(c.opts(operator), addr(customer), big.NewInt(5_000_000)))
	c.mined(tok.Approve(c.opts(customer), managerAddr, big.NewInt(5_000_000)))

	head, err := c.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	perm := contracts.SpendPermissionManagerSpendPermission{
		Account: addr(customer), Spender: addr(operator), Token: tokenAddr,
		Allowance: big.NewInt(1_000_000), Period: big.NewInt(3600),
		Start: new(big.Int).SetUint64(head.Time + 3600), End: new(big.Int).SetUint64(head.Time + 3*3600),
		Salt: big.NewInt(0), ExtraData: []byte("plan-1"),
	}
	// Only the account may approve directly.
	if _, err := manager.Approve(c.opts(operator), perm); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "InvalidSender" {
		t.Errorf("approve by the spender: %v, want InvalidSender", err)
	}
	c.mined(manager.Approve(c.opts(customer), perm))

	// Not started yet.
	if _, err := manager.Spend(c.opts(operator), perm, big.NewInt(1)); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "BeforeSpendPermissionStart" {
		t.Errorf("spend before start: %v, want BeforeSpendPermissionStart", err)
	}
	c.adjustTime(3600 * time.Second)
	c.mined(manager.Spend(c.opts(operator), perm, big.NewInt(1_000_000)))
	// Ended.
	c.adjustTime(2 * 3600 * time.Second)
	if _, err := manager.Spend(c.opts(operator), perm, big.NewInt(1)); revertName(t, contracts.SpendPermissionManagerMetaData, err) != "AfterSpendPermissionEnd" {
		t.Errorf("spend after end: %v, want AfterSpendPermissionEnd", err)
	}
	wantBig(t, "operator balance", tokenBalance(t, tok, addr(operator)), big.NewInt(1_000_000))
}
