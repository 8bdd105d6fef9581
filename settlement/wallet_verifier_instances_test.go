package settlement_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// sendUSDC sends units of USDC from development account i to split without waiting for it.
func (e *distEnv) sendUSDC(i int, nonce uint64, split string, units int64) string {
	e.t.Helper()
	opts, err := bind.NewKeyedTransactorWithChainID(e.dev.Accounts[i].Key, big.NewInt(chain.DevChainID))
	if err != nil {
		e.t.Fatal(err)
	}
	opts.Context, opts.Nonce = e.ctx, new(big.Int).SetUint64(nonce)
	usdc, _ := e.dev.Token("USDC")
	tx, err := chain.SendToken(opts, e.rpc.Backend(), usdc.Address, common.HexToAddress(split), big.NewInt(units))
	if err != nil {
		e.t.Fatal(err)
	}
	return tx.Hash().Hex()
}

// TestTwoInstancesVerifyAndDistribute: two instances, each running the wallet verifier and the
// split distributor as serve does, on one database and one chain. Section 8 had them confirm and
// distribute payments sent to the merchant's split with their hashes submitted; DESIGN 9 retires
// that path: a transfer to the split pays no receipt, so with the hashes submitted and the
// transfers deep, every receipt stays pending, nothing is confirmed, distributed or released.
func TestTwoInstancesVerifyAndDistribute(t *testing.T) {
	e := newDistEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()

	ctx, cancel := context.WithCancel(e.ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for range 2 {
		rpc, err := chain.Dial(ctx, e.dev.URL, chain.DevChainID)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rpc.Close)
		v := settlement.NewVerifyWalletPaymentsHandler(e.store, readmodels.NewReceipts(e.pool), commands.NewSplits(e.store),
			chain.NewPaymentWatcher(rpc, e.dev.Tokens, 2), time.Now)
		d := e.distributor(settlement.NewOperatorSender(e.op, readmodels.NewOperatorTransactions(e.pool)))
		wg.Go(func() { _ = v.Run(ctx, 100*time.Millisecond, 200*time.Millisecond, zerolog.Nop()) })
		wg.Go(func() {
			for ctx.Err() == nil {
				_, _ = d.Handle(ctx)
				time.Sleep(150 * time.Millisecond)
			}
		})
	}

	const n = 6
	ids := make([]string, n)
	hashes := make([]string, n)
	for i := range n {
		cents := money.Cents(100 + 7*i)
		ids[i] = e.depositGenerated(merchant, cents, st.Address)
		hashes[i] = e.sendUSDC(i%3, uint64(i/3), st.Address, int64(cents)*10_000)
		if _, _, err := recordAttempt(e.ctx, e.store, ids[i], "USDC", hashes[i], e.dev.Accounts[i%3].Address.Hex()); err != nil {
			t.Fatal(err)
		}
	}
	// Every transfer mined and 3 blocks deep, then time for both instances to pass over them.
	var last uint64
	for _, h := range hashes {
		for {
			r, err := e.rpc.Backend().TransactionReceipt(e.ctx, common.HexToHash(h))
			if err == nil {
				last = max(last, r.BlockNumber.Uint64())
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		head, err := e.rpc.Backend().BlockNumber(e.ctx)
		if err == nil && head >= last+3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the chain stopped before block %d", last+3)
		}
	}
	time.Sleep(time.Second)
	cancel()
	wg.Wait()
	for _, id := range ids {
		if s := e.state(id); s.Status != receipt.StatusPending || s.Payment != nil {
			t.Fatalf("receipt %s paid from the split: %s %+v", id, s.Status, s.Payment)
		}
	}
	var sent int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM operator_transactions WHERE kind = 'release'`).Scan(&sent); err != nil {
		t.Fatal(err)
	}
	if sent != 0 {
		t.Fatalf("%d releases for receipts nobody paid", sent)
	}
}

// depositGenerated creates a USD receipt of total for merchant with a deposit address of its own
// sweeping to split.
func (e *distEnv) depositGenerated(merchant string, total money.Cents, split string) string {
	e.t.Helper()
	now := time.Now()
	id := commands.NewReceiptID(now)
	deposit := common.BytesToAddress([]byte(id)).Hex()
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total,
		DepositAddress: deposit, DepositSplit: split, ExpiresAt: now.Add(time.Hour).UnixMilli()}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, now, eventstore.Metadata{}, g); err != nil {
		e.t.Fatal(err)
	}
	return id
}
