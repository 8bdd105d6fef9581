package settlement_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// Issue 26: receipts issued for one merchant and split each get their own deposit address, the
// CREATE2 address of (receipt, split) under the factory, and their window's end; a merchant
// without a split gets none.
func TestDepositAddressesAreNeverShared(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	merchant, unsplit := newWallet(t), newWallet(t)
	_, err := commands.NewConfigureSplitHandler(e.store, payPlatform, time.Now).Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Address: strings.ToLower(e.split.Hex())})
	e.ok(err)
	vault, err := secrets.NewWebhookKeys(e.pool, make([]byte, 32))
	e.ok(err)
	issuer := commands.NewIssuer(e.store, readmodels.NewIdempotency(e.pool), vault, nil, func(error) bool { return false }, time.Now).
		WithDeposits(commands.NewSplits(e.store), chain.DepositAddresses{Factory: e.factory}, time.Hour)
	seen := map[string]string{}
	for i := range 200 {
		g := receipt.Generated{Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
			LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: money.Cents(100 + i)}}, Subtotal: money.Cents(100 + i), Total: money.Cents(100 + i)}
		out, err := issuer.Issue(e.ctx, g, commands.Issue{})
		e.ok(err)
		r := out.State.Receipt
		if want := chain.DepositAddress(e.factory, r.ReceiptID, e.split).Hex(); r.DepositAddress != want {
			t.Fatalf("receipt %s: deposit %s, want %s", r.ReceiptID, r.DepositAddress, want)
		}
		if other, dup := seen[r.DepositAddress]; dup {
			t.Fatalf("receipts %s and %s share the deposit address %s", other, r.ReceiptID, r.DepositAddress)
		}
		seen[r.DepositAddress] = r.ReceiptID
		if r.ExpiresAt != r.CreatedAt+time.Hour.Milliseconds() || !strings.EqualFold(r.DepositSplit, e.split.Hex()) {
			t.Fatalf("expiresAt %d createdAt %d split %s", r.ExpiresAt, r.CreatedAt, r.DepositSplit)
		}
	}
	g := receipt.Generated{Merchant: unsplit, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Subtotal: 100, Total: 100}
	out, err := issuer.Issue(e.ctx, g, commands.Issue{})
	e.ok(err)
	if out.State.DepositAddress() != "" {
		t.Fatalf("a merchant without a split got deposit %s", out.State.DepositAddress())
	}
}

// A transfer whose block is replaced before the depth stops counting; one mined again in the new
// branch counts there, once.
func TestDepositReorgBeforeTheDepth(t *testing.T) {
	t.Parallel()
	for _, dropped := range []bool{true, false} {
		t.Run(map[bool]string{true: "dropped", false: "mined again"}[dropped], func(t *testing.T) {
			e := newDepositEnv(t)
			r := e.receipt(300)
			d := e.detector()
			e.step(d)
			head, err := e.sim.HeaderByNumber(e.ctx, nil)
			e.ok(err)
			e.mined(e.payToken(e.usdc, r.DepositAddress(), 3_000_000))
			e.step(d)
			e.want(r.Receipt.ReceiptID, receipt.StatusPending, "0.00")
			e.ok(e.b.Fork(head.Hash()))
			if dropped {
				e.b.Rollback()
				e.poolEmpty() // the pool drops the forked-away transactions on its own goroutine
				e.b.Rollback()
			}
			for range 3 {
				e.commit()
			}
			e.step(d)
			e.commit()
			e.step(d)
			if dropped {
				st := e.want(r.Receipt.ReceiptID, receipt.StatusPending, "0.00")
				if len(st.Credits) != 1 || !st.Credits[0].Dropped || st.TransactionHash() != "" {
					t.Fatalf("credits %+v", st.Credits)
				}
				return
			}
			st := e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "3.00")
			if len(st.Credits) != 1 || st.Credits[0].BlockHash == "" || !st.Credits[0].Counts() {
				t.Fatalf("credits %+v", st.Credits)
			}
		})
	}
}

// A payment mined while the detector was stopped, with more blocks after it than a first start
// looks back, is found after the restart: the cursor was kept in the database.
func TestDepositFoundAfterRestart(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	r := e.receipt(100)
	e.step(e.detector())
	e.mined(e.payToken(e.usdc, r.DepositAddress(), 1_000_000))
	for range 300 {
		e.b.Commit()
	}
	restarted := e.detector()
	for range 2 {
		e.step(restarted)
	}
	e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "1.00")
}

// A receipt created and paid while a step runs, after the step began and before it read the
// chain's head, is credited: the step reads the open deposits after the head. (It read them
// first once, so the paying block was read without the new address and the cursor moved past the
// payment for good: CI's cluster test saw such a payment never credited after a switchover.)
func TestDepositPaidWhileAStepBeginsIsCredited(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	e.step(d)
	var paid receipt.State
	var once sync.Once
	d.Chain = beforeScan{DepositChain: d.Chain, run: func() {
		once.Do(func() {
			paid = e.receipt(250)
			e.synced() // its row is written, as before the payment page shows its address
			e.mined(e.payToken(e.usdc, paid.DepositAddress(), 2_500_000))
		})
	}}
	if res := e.step(d); res.Transfers != 1 {
		t.Fatalf("the step that began before the payment found %d transfers, want the payment", res.Transfers)
	}
	e.commit()
	e.step(d)
	e.want(paid.Receipt.ReceiptID, receipt.StatusPaid, "2.50")
}

// A receipt whose address was shown before its row was written (degraded mode: the order is
// journaled, and its row comes with the journal's replay), and paid meanwhile, is credited: the
// detector had read the paying block while the address was not watched, and looks the deposit
// up in the blocks mined since the receipt was issued once it is. A receipt issued after the
// blocks read is not looked back for (no extra request).
func TestDepositWatchedLateIsLookedBackFor(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	counted := &countingChain{DepositChain: e.detector().Chain}
	d := e.detector()
	d.Chain = counted
	e.step(d)
	id := e.paidBeforeItsRow(d, 0)
	onTime := e.receipt(200) // issued after the blocks read: nothing to look back for
	e.synced()
	e.commit() // the watch list is read when there is a new block to read
	if res := e.step(d); res.Transfers != 1 || counted.lookbacks != 1 || counted.asked != 1 {
		t.Fatalf("the step after the late row: %d transfers, %d look-backs for %d deposits; want the payment, by one look-back for one deposit",
			res.Transfers, counted.lookbacks, counted.asked)
	}
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPaid, "1.50")
	e.want(onTime.Receipt.ReceiptID, receipt.StatusGenerated, "")
	if counted.lookbacks != 1 {
		t.Fatalf("%d look-backs, want only the one for the late deposit", counted.lookbacks)
	}
}

// A journal replayed as serve restarts writes the rows of orders journaled before it, maybe
// before the restarted detector's first step reads its watch list: that first step looks back
// for the unpaid deposits whose rows were written since the last step read its watch list.
func TestDepositWatchedLateAcrossARestartIsLookedBackFor(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	e.step(d)
	id := e.paidBeforeItsRow(d, 0)
	e.commit()
	e.afterRestart(e.detector())
	e.want(id, receipt.StatusPaid, "1.50")
}

// afterRestart steps d, a restarted detector, over the newest block and one more, and returns
// the count of its look-backs.
func (e *depositEnv) afterRestart(d *settlement.DepositDetector) *countingChain {
	e.t.Helper()
	counted := &countingChain{DepositChain: d.Chain}
	d.Chain = counted
	e.step(d)
	e.commit()
	e.step(d)
	return counted
}

// A restarted detector remembers no head: it looks a late deposit up from the block mined when
// its receipt was issued, however many blocks ago (found by block time), in ranges of MaxRange.
func TestDepositWatchedLateLongBeforeARestartIsLookedBackFor(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	short := func() *settlement.DepositDetector {
		d := e.detector()
		d.MaxRange = 2
		return d
	}
	d := short()
	e.step(d)
	id := e.paidBeforeItsRow(d, 6) // the paying block and six more read without it
	e.commit()
	counted := e.afterRestart(short())
	e.want(id, receipt.StatusPaid, "1.50")
	if counted.lookbacks < 4 {
		t.Fatalf("%d eth_getLogs over the 8 blocks since the receipt was issued, want ranges of 2 blocks", counted.lookbacks)
	}
}

// An order journaled more than an hour before a restart (serve cut off from its database for
// that long), paid meanwhile, its row written by the journal's replay after the last step that
// moved the cursor: the restarted detector's first step looks it up, because its row was written
// after that step read its watch list (the cursor keeps when). It used to look back only for the
// receipts issued within the hour, and this payment was lost.
func TestDepositJournaledLongBeforeARestartIsLookedBackFor(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	e.step(d)
	old := e.receiptIssued(newWallet(e.t), commands.NewReceiptID(e.at), time.Now().Add(-3*time.Hour), 100) // watched, unpaid
	e.synced()
	// written minutes before the steps below read their watch lists (a test's minutes are
	// seconds: past the minute a transaction may span)
	_, err := e.pool.Exec(e.ctx, `UPDATE receipts SET listed_at = listed_at - interval '10 minutes' WHERE receipt_id = $1`, old.Receipt.ReceiptID)
	e.ok(err)
	e.commit()
	e.step(d)
	id := e.issuedPaidBeforeItsRow(d, time.Now().Add(-2*time.Hour), 0)
	e.commit()
	counted := e.afterRestart(e.detector())
	e.want(id, receipt.StatusPaid, "1.50")
	e.want(old.Receipt.ReceiptID, receipt.StatusGenerated, "")
	if counted.asked != 1 {
		t.Fatalf("the restarted detector looked back for %d deposits, want only the one written since the last step", counted.asked)
	}
}

// A look-back the node refuses does not hold the step, is reported with it (the worker's health
// shows it: detectionProgress), and is tried again at the next one.
func TestDepositLookBackRefusedIsTriedAgain(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	counted := &countingChain{DepositChain: e.detector().Chain, refuse: 1}
	d := e.detector()
	d.Chain = counted
	e.step(d)
	id := e.paidBeforeItsRow(d, 0)
	e.commit()
	if res := e.step(d); res.To == 0 || counted.lookbacks != 1 || res.LookBack == nil {
		t.Fatalf("the step whose look-back was refused: %+v after %d look-backs; want its block read, and the refusal", res, counted.lookbacks)
	}
	e.commit()
	if res := e.step(d); res.LookBack != nil {
		t.Fatalf("the retry: %v", res.LookBack)
	}
	e.want(id, receipt.StatusPaid, "1.50")
	if counted.lookbacks != 2 {
		t.Fatalf("%d look-backs, want the refused one and its retry", counted.lookbacks)
	}
}

// paidBeforeItsRow is an order journaled in degraded mode and paid at once: its 1.50 deposit is
// paid and the paying block, and `more` blocks after it, read by d before the receipt's row is
// written (by the journal's replay, with the time the order was taken). It returns the receipt's
// id.
func (e *depositEnv) paidBeforeItsRow(d *settlement.DepositDetector, more int) string {
	e.t.Helper()
	return e.issuedPaidBeforeItsRow(d, time.Now(), more)
}

// issuedPaidBeforeItsRow is paidBeforeItsRow for an order taken at issued.
func (e *depositEnv) issuedPaidBeforeItsRow(d *settlement.DepositDetector, issued time.Time, more int) string {
	e.t.Helper()
	id := commands.NewReceiptID(issued)
	e.mined(e.payToken(e.usdc, e.depositOf(id), 1_500_000))
	for range more + 1 {
		e.commit()
		e.step(d) // the paying block is read; the receipt has no row yet
	}
	e.receiptIssued(newWallet(e.t), id, issued, 150)
	e.synced()
	return id
}

// countingChain counts the look-backs and the deposits they ask for, and refuses the first
// `refuse` of them.
type countingChain struct {
	settlement.DepositChain
	lookbacks, asked, refuse int
}

func (c *countingChain) TransfersTo(ctx context.Context, from, to uint64, addresses []string) ([]settlement.DepositTransfer, error) {
	c.lookbacks++
	c.asked += len(addresses)
	if c.lookbacks <= c.refuse {
		return nil, errors.New("query returned more than 10000 results")
	}
	return c.DepositChain.TransfersTo(ctx, from, to, addresses)
}

// beforeScan is a chain on which run happens as a step's scan begins, before it reads the head.
type beforeScan struct {
	settlement.DepositChain
	run func()
}

func (c beforeScan) Scan(ctx context.Context, from, most uint64, watch settlement.DepositWatch) (settlement.DepositScan, error) {
	c.run()
	return c.DepositChain.Scan(ctx, from, most, watch)
}

// Two detectors stepping at once over the same chain and ledger credit every transfer once.
func TestDepositTwoInstancesCreditOnce(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	var rs []receipt.State
	for range 20 {
		rs = append(rs, e.receipt(100))
	}
	a, b := e.detector(), e.detector()
	both := func() {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		wg.Go(func() { _, errs[0] = a.Step(e.ctx) })
		wg.Go(func() { _, errs[1] = b.Step(e.ctx) })
		wg.Wait()
		e.ok(errors.Join(errs...))
		e.synced()
	}
	both()
	for _, r := range rs {
		e.payToken(e.usdc, r.DepositAddress(), 1_000_000)
	}
	e.commit()
	both()
	e.commit()
	both()
	both()
	for _, r := range rs {
		e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "1.00")
		evs, err := commands.ReadReceiptEvents(e.ctx, e.store, r.Receipt.ReceiptID)
		e.ok(err)
		count := map[string]int{}
		for _, ev := range evs {
			count[ev.Type]++
		}
		if count[receipt.EventDepositTransferSeen] != 1 || count[receipt.EventDepositTransferConfirmed] != 1 || count[receipt.EventConfirmed] != 1 {
			t.Fatalf("receipt %s: events %v", r.Receipt.ReceiptID, count)
		}
	}
	var credits int
	e.ok(e.pool.QueryRow(e.ctx, `SELECT count(*) FROM deposit_credits`).Scan(&credits))
	if credits != len(rs) {
		t.Fatalf("%d deposit credits, want %d", credits, len(rs))
	}
}

// 10,000 open deposit addresses: a step costs the same few round trips as with one, and the
// transfers to three of them are credited.
func TestDeposit10000OpenAddresses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("10,000 open deposits (make test-slow)")
	}
	e := newDepositEnv(t)
	rs := e.manyReceipts(10_000)
	d := e.detector()
	e.step(d)
	paid := []receipt.State{rs[17], rs[5_003], rs[9_999]}
	for _, r := range paid {
		e.payToken(e.usdc, r.DepositAddress(), 1_000_000)
	}
	e.commit()
	e.commit()
	before := e.rpc.Stats()
	e.step(d)
	calls := e.rpc.Stats().Calls - before.Calls
	for _, r := range paid {
		e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "1.00")
	}
	e.want(rs[18].Receipt.ReceiptID, receipt.StatusGenerated, "")
	// head, logs, blocks, receipts of ETH (none: skipped), balances (one batch of 500)
	if calls > 5 {
		t.Fatalf("a step with 10,000 open deposits made %d round trips", calls)
	}
}

// manyReceipts generates n receipts of 1.00 with deposit addresses, 32 at a time.
func (e *depositEnv) manyReceipts(n int) []receipt.State {
	e.t.Helper()
	out := make([]receipt.State, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	var mu sync.Mutex
	var firstErr error
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			id := commands.NewReceiptID(e.at)
			g := receipt.Generated{ReceiptID: id, Merchant: "0x" + strings.Repeat("a", 40), Source: "direct", Currency: "USD", TaxRate: "0",
				TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Subtotal: 100, Total: 100,
				DepositAddress: chain.DepositAddress(e.factory, id, e.split).Hex(), DepositSplit: strings.ToLower(e.split.Hex())}
			st, _, err := commands.GenerateReceipt(e.ctx, e.store, time.Now(), eventstore.Metadata{}, g)
			mu.Lock()
			defer mu.Unlock()
			out[i] = st
			if err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
	wg.Wait()
	e.ok(firstErr)
	e.synced()
	return out
}

// Issue 38: among 10,000 open deposits, one quoted in ETH receives ETH from a contract (an
// internal transfer no transaction shows): the step's balance check of the deposits whose ETH
// quote is open finds it, and no step costs more than 5 JSON-RPC requests.
func TestDepositContractETHAmong10000OpenInFiveRequests(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("10,000 open deposits (make test-slow)")
	}
	e := newDepositEnv(t)
	rs := e.manyReceipts(10_000)
	quoted := rs[4_321]
	e.quote(quoted.Receipt.ReceiptID, "0.00100000")
	d := e.detector()
	e.step(d)
	e.fromContract(quoted.DepositAddress(), big.NewInt(1e15))
	for range 3 {
		e.commit()
		before := e.rpc.Stats()
		e.step(d)
		if n := e.rpc.Stats().Requests - before.Requests; n > 5 {
			t.Fatalf("a step with 10,000 open deposits made %d JSON-RPC requests", n)
		}
	}
	st := e.want(quoted.Receipt.ReceiptID, receipt.StatusPaid, "0.001")
	if len(st.Credits) != 1 || st.Credits[0].LogIndex != settlement.BalanceLogIndex {
		t.Fatalf("credits %+v", st.Credits)
	}
	e.want(rs[4_322].Receipt.ReceiptID, receipt.StatusGenerated, "")
}
