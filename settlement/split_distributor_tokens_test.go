package settlement_test

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/settlement"
)

// TestDistributeReleasesEveryTokenSweptForTheReceipt: 5 USDT sent to an underpaid receipt's
// deposit, the rest (7.31) paid by card: the receipt's payment is the processor's USDC, and the
// USDT is swept to the split. Before, the distributor released USDC only and reconciled the
// receipt: the USDT waited in the split for some later USDT receipt. Now both tokens are released
// with it, one release per token and payee even with two distributors at once and a restart, and
// the receipt's SplitDistributed is still the paid token's.
func TestDistributeReleasesEveryTokenSweptForTheReceipt(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, platform, st, sender := e.merchantWithSplit()
	id, deposit := e.depositReceipt(merchant, st.Address, 1231)
	e.payDeposit(id, deposit, "USDT", 5_000_000)
	e.pay(st.Address, 7_310_000) // the processor delivers the rest to the split
	e.cardPaysTheRest(id, "7.31")
	e.sweepAll(e.sweeperOf(e.sweeper), id)
	if s := e.state(id); s.Status != receipt.StatusPaid || s.Payment.Token != "USDC" || len(s.Sweeps) != 1 || s.Sweeps[0].Token != "USDT" {
		t.Fatalf("receipt %s payment %+v sweeps %+v, want paid by the processor in USDC, USDT swept", s.Status, s.Payment, s.Sweeps)
	}

	// Two instances on one database at once.
	a, b := e.distributor(sender), e.distributor(sender)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, h := range []*settlement.DistributeSplitsHandler{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = e.reconcileAll(h, id) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	share := func(units, bps int64) *big.Int { return big.NewInt(units * bps / 10_000) }
	for _, c := range []struct {
		token, wallet string
		want          *big.Int
	}{{"USDT", merchant, share(5_000_000, 9950)}, {"USDT", platform, share(5_000_000, 50)},
		{"USDC", merchant, share(7_310_000, 9950)}, {"USDC", platform, share(7_310_000, 50)},
		{"USDT", st.Address, big.NewInt(0)}, {"USDC", st.Address, big.NewInt(0)}} {
		if got := e.balanceOf(c.token, c.wallet); got.Cmp(c.want) != 0 {
			t.Errorf("%s of %s: %s, want %s", c.token, c.wallet, got, c.want)
		}
	}
	d := e.distributed(id)
	if len(d) != 1 || d[0].Token != "USDC" || len(d[0].Amounts) != 2 || d[0].Amounts[0].Amount != share(7_310_000, 9950).String() {
		t.Fatalf("SplitDistributed %+v, want one of the paid USDC", d)
	}

	// A restart: a new distributor's passes send nothing more.
	if out, err := e.distributor(sender).Handle(e.ctx); err != nil || out.Releases != 0 {
		t.Fatalf("a pass after the reconciliation: %+v %v", out, err)
	}
	rows, err := e.pool.Query(e.ctx, `SELECT token, count(*) FROM operator_transactions WHERE kind = 'release' GROUP BY token`)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for rows.Next() {
		var token string
		var n int
		if err := rows.Scan(&token, &n); err != nil {
			t.Fatal(err)
		}
		counts[token] = n
	}
	if rows.Close(); counts["USDC"] != 2 || counts["USDT"] != 2 || len(counts) != 2 {
		t.Fatalf("releases per token %v, want one per payee in USDC and in USDT", counts)
	}
}

// cardPaysTheRest records the processor's success of a session the service started for
// receipt id, of usd, as its webhook would.
func (e *sweepEnv) cardPaysTheRest(id, usd string) {
	e.t.Helper()
	_, res, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{Actor: "test"}, func(s receipt.State) ([]receipt.Event, error) {
		return receipt.DecideProcessorUpdate(s, receipt.ProcessorUpdate{SessionID: "sess_" + id, Status: "fulfillment_complete",
			SourceAmountUSD: usd, SessionUnique: true, SessionOwner: id, At: time.Now().UnixMilli()})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.projected(id, res.Version)
}

// TestDistributePastAReceiptThatCannotBeRead: one paid receipt at a deposit and one paid
// directly hold an event this build cannot read (a newer build's, during a rollback). Before, the
// deposit's load in the split lookup failed every pass, so no receipt was released or
// reconciled. Now both stay paid, the other receipt is released and reconciled, each unreadable
// receipt is logged once naming its stream, and every pass returns the error (the worker shows
// degraded in /healthz).
func TestDistributePastAReceiptThatCannotBeRead(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, sender := e.merchantWithSplit()
	e.pay(st.Address, 3_000_000)
	atDeposit, _ := e.depositReceipt(merchant, st.Address, 100)
	e.cardPaysTheRest(atDeposit, "1.00")
	direct := e.paidReceipt(merchant, 100)
	good := e.paidReceipt(merchant, 100)
	e.listedPaid(atDeposit)
	for _, id := range []string{atDeposit, direct} {
		e.appendUnknown(id)
	}

	var logs syncbuf.Buffer
	e.ctx = zerolog.New(&logs).WithContext(e.ctx)
	h := e.distributor(sender)
	e.until(h, good)
	_, err := h.Handle(e.ctx)
	if !errors.Is(err, receipt.ErrUnknownEvent) || !strings.Contains(err.Error(), atDeposit) && !strings.Contains(err.Error(), direct) {
		t.Fatalf("a pass returned %v, want the unreadable receipt's error naming it (the worker degraded)", err)
	}
	for _, id := range []string{atDeposit, direct} {
		if d := e.distributed(id); len(d) != 0 {
			t.Errorf("unreadable receipt %s reconciled: %+v", id, d)
		}
		if out := logs.String(); strings.Count(out, `"stream":"`+receipt.Stream(id)+`"`) != 1 {
			t.Errorf("want one error naming %s in the log:\n%s", receipt.Stream(id), out)
		}
	}
}

// appendUnknown appends to receipt id's stream an event of a type this build does not know.
func (e *sweepEnv) appendUnknown(id string) {
	e.t.Helper()
	evs, err := e.store.ReadStream(e.ctx, receipt.Stream(id), 1, 100)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.store.Append(e.ctx, receipt.Stream(id), eventstore.Exact(uint64(len(evs))),
		eventstore.EventData{ID: uuid.New(), Type: "ReceiptAnnotatedInTheFuture", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
		e.t.Fatal(err)
	}
}
