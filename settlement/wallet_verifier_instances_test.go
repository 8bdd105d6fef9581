package settlement_test

import (
	"context"
	"math/big"
	"strings"
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

// generated creates a USD receipt of total for merchant, waiting for nothing.
func (e *distEnv) generated(merchant string, total money.Cents) string {
	e.t.Helper()
	now := time.Now()
	id := commands.NewReceiptID(now)
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, now, eventstore.Metadata{}, g); err != nil {
		e.t.Fatal(err)
	}
	return id
}

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
// split distributor as serve does (each its own follower, sender and connection pool users), on
// one database and one chain: every payment is confirmed once, every receipt distributed once,
// and the payees hold exactly their shares of what was paid.
func TestTwoInstancesVerifyAndDistribute(t *testing.T) {
	e := newDistEnv(t)
	merchant, platform, st, _ := e.merchantWithSplit()
	submit := commands.NewSubmitWalletPaymentHandler(e.store, readmodels.NewReceipts(e.pool), time.Now)

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

	const n = 12
	ids := make([]string, n)
	hashes := make([]string, n)
	var total int64
	for i := range n {
		cents := money.Cents(100 + 7*i)
		ids[i] = e.generated(merchant, cents)
		units := int64(cents) * 10_000
		total += units
		hash := e.sendUSDC(i%3, uint64(i/3), st.Address, units)
		hashes[i] = hash
		if _, err := submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: ids[i], Token: "USDC", TransactionHash: hash,
			BuyerWallet: e.dev.Accounts[i%3].Address.Hex()}); err != nil {
			t.Fatal(err)
		}
		if i%4 == 3 {
			time.Sleep(400 * time.Millisecond) // payments arrive while the others are distributed
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, id := range ids {
		for e.state(id).Status != receipt.StatusReconciled {
			if time.Now().After(deadline) {
				for _, h := range hashes {
					r, err := e.rpc.Backend().TransactionReceipt(e.ctx, common.HexToHash(h))
					tx, _, _ := e.rpc.Backend().TransactionByHash(e.ctx, common.HexToHash(h))
					if err == nil && r.Status == 0 {
						t.Logf("reverted %s: gas used %d of %d, block %d", h, r.GasUsed, tx.Gas(), r.BlockNumber)
					}
				}
				t.Fatalf("receipt %s is %s %+v", id, e.state(id).Status, e.state(id).Failure)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	cancel()
	wg.Wait()
	for _, id := range ids {
		var confirmed, distributed int
		evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			switch ev.Type {
			case receipt.EventConfirmed:
				confirmed++
			case receipt.EventSplitDistributed:
				distributed++
			}
		}
		if confirmed != 1 || distributed != 1 {
			t.Fatalf("receipt %s: %d PaymentConfirmed, %d SplitDistributed; want 1 each", id, confirmed, distributed)
		}
	}
	wantMerchant := total * 9950 / 10000
	if got := e.usdcBalance(merchant); got.Int64() != wantMerchant {
		t.Fatalf("merchant has %s, want %d", got, wantMerchant)
	}
	if got := e.usdcBalance(platform); got.Int64() != total*50/10000 {
		t.Fatalf("platform has %s, want %d", got, total*50/10000)
	}
	var sent, distinct int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*), count(DISTINCT nonce) FROM operator_transactions WHERE kind = 'release'`).Scan(&sent, &distinct); err != nil {
		t.Fatal(err)
	}
	r := e.releases(st.Address)
	if sent != distinct || r[strings.ToLower(merchant)]+r[strings.ToLower(platform)] != sent {
		t.Fatalf("%d releases recorded (%d nonces), on chain %v", sent, distinct, r)
	}
	t.Logf("%d receipts, %d releases", n, sent)
}
