package settlement_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
)

// deploySplitDirectly deploys a PaymentSplit paying payees their shares from a development
// account, as a merchant with its own tools would, and returns its address (checksummed).
func (e *distEnv) deploySplitDirectly(payees []string, shares []int64) string {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	addrs, sh := splitArgs(payees, shares)
	addr, tx, _, err := contracts.DeployPaymentSplit(e.merchantTransactor(), e.rpc.Backend(), addrs, sh)
	return common.HexToAddress(e.deployedAt(addr, tx, err)).Hex()
}

// merchantTransactor is a development account's transactor, as a merchant deploying its own
// contracts with its own tools would use (the caller holds e.mu: one account, one nonce).
func (e *distEnv) merchantTransactor() *bind.TransactOpts {
	e.t.Helper()
	opts, err := bind.NewKeyedTransactorWithChainID(e.dev.Accounts[1].Key, big.NewInt(chain.DevChainID))
	if err != nil {
		e.t.Fatal(err)
	}
	opts.Context = e.ctx
	return opts
}

// splitArgs are a splitter constructor's payees and shares.
func splitArgs(payees []string, shares []int64) ([]common.Address, []*big.Int) {
	addrs, sh := make([]common.Address, len(payees)), make([]*big.Int, len(payees))
	for i := range payees {
		addrs[i], sh[i] = common.HexToAddress(payees[i]), big.NewInt(shares[i])
	}
	return addrs, sh
}

// deployedAt waits for a deployment and is its address, lower case.
func (e *distEnv) deployedAt(addr common.Address, tx *types.Transaction, err error) string {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := bind.WaitDeployed(e.ctx, e.rpc.Backend(), tx); err != nil {
		e.t.Fatal(err)
	}
	return strings.ToLower(addr.Hex())
}

// A split contract belongs to one merchant (DESIGN 9): another merchant's configured split is
// 409 conflict; a pre-deployed contract must pay the merchant's wallet a share, checked on
// chain (400 invalid_input otherwise, a contract that is no splitter included).
func TestDeploySplitOwnership(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	owner, platform := newWallet(t), newWallet(t)
	deploy, _ := e.handlers(platform)
	owned := e.deploy(deploy, owner)

	_, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: newWallet(t), Address: owned.Address})
	wantRefusal(t, err, "conflict", "This split contract is configured by another merchant")

	merchant := newWallet(t)
	notPaying := e.deploySplitDirectly([]string{newWallet(t), platform}, []int64{9950, 50})
	_, err = deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Address: notPaying})
	wantRefusal(t, err, "invalid_input", "splitAddress "+notPaying+" does not pay your wallet")
	usdc, _ := e.dev.Token("USDC")
	_, err = deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Address: usdc.Address.Hex()})
	wantRefusal(t, err, "invalid_input", "splitAddress")
	if st, _ := commands.LoadSplit(e.ctx, e.store, merchant); st.Configured {
		t.Fatalf("a refused split was configured: %+v", st)
	}

	paying := e.deploySplitDirectly([]string{merchant, platform}, []int64{9950, 50})
	res, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Address: paying})
	if err != nil || !res.State.Configured {
		t.Fatalf("a split paying the merchant: %+v %v", res, err)
	}
}
