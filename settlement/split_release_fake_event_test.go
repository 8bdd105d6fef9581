package settlement_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
)

// A merchant's payee is a contract that, receiving its ETH share, emits PaymentReleased and
// ERC20PaymentReleased events of its own claiming 10^24 wei: the release's recorded amount (and
// so SplitDistributed) is what the split itself released, the wei the payee actually received.
// Before, every release event in the transaction's receipt was added up, whatever contract
// emitted it, and the merchant's records showed an amount never paid.
func TestDistributeSplitCountsOnlyTheSplitsReleaseEvents(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	fake := e.deployFakeReleasePayee(new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil))
	platform := newWallet(t)
	deploy, sender := e.handlers(platform)
	st := e.deploy(deploy, fake)
	opts, err := bind.NewKeyedTransactorWithChainID(e.dev.Accounts[1].Key, big.NewInt(chain.DevChainID))
	if err != nil {
		t.Fatal(err)
	}
	opts.Context, opts.Value = e.ctx, big.NewInt(4_100_000_000_000_003)
	tx, err := chain.SendETH(opts, e.rpc.Backend(), common.HexToAddress(st.Address))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		t.Fatal(err)
	}
	id := e.paidReceiptIn(fake, 1000, "ETH")
	e.until(e.distributor(sender), id)

	got, err := e.rpc.Backend().BalanceAt(e.ctx, common.HexToAddress(fake), nil)
	if err != nil || got.String() != "4079500000000002" {
		t.Fatalf("the payee contract holds %v wei (%v)", got, err)
	}
	d := e.distributed(id)
	if len(d) != 1 {
		t.Fatalf("SplitDistributed %+v", d)
	}
	for _, a := range d[0].Amounts {
		if strings.EqualFold(a.Recipient, fake) && a.Amount != got.String() {
			t.Fatalf("SplitDistributed records %s wei released to the payee contract, which received %s", a.Amount, got)
		}
	}
	var recorded string
	if err := e.pool.QueryRow(e.ctx, `SELECT amount FROM operator_transactions WHERE kind = 'release' AND lower(payee) = $1`,
		strings.ToLower(fake)).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	if recorded != got.String() {
		t.Fatalf("the release is recorded as %s wei, the payee received %s", recorded, got)
	}
}

// deployFakeReleasePayee deploys, from a development account, a payee contract that emits fake
// release events claiming fake when it receives ETH.
func (e *distEnv) deployFakeReleasePayee(fake *big.Int) string {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	addr, tx, _, err := contracts.DeployFakeReleasePayee(e.merchantTransactor(), e.rpc.Backend(), fake)
	return e.deployedAt(addr, tx, err)
}
