package settlement_test

// The deposit detector's audit after a reorg past the confirmation depth (deposit_audit.go).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestDepositAuditReorgAfterTheDepth: a receipt paid at depth 2 whose paying block a deeper reorg
// removes, with the transaction gone, is flagged once and never confirmed a second time; the
// receipt keeps its one PaymentConfirmed, which names the replaced block, and is not reconciled
// while flagged (the distributor's list leaves it out, the domain refuses it). When the same
// transaction is mined again, it is restored at its depth (PaymentRestored, naming the new
// block): still one confirmation, and the receipt may be reconciled.
func TestDepositAuditReorgAfterTheDepth(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	id, tx, paying := e.paidThenReorgedAway(d)
	for range 4 {
		e.commit()
		e.step(d)
	}
	if n := e.count(id, receipt.EventFailureIgnored); n != 1 {
		t.Fatalf("%d flags, want 1", n)
	}
	if st := e.state(id); st.ChainWithdrawnTx != strings.ToLower(tx.Hash().Hex()) {
		t.Fatalf("flagged state: withdrawn %q", st.ChainWithdrawnTx)
	}
	e.notDistributable(id)
	c := e.confirmations(id)
	if st := e.state(id); st.Status != receipt.StatusPaid || len(c) != 1 || c[0].BlockHash != strings.ToLower(paying.Hex()) {
		t.Fatalf("after the reorg: %s, confirmations %+v", st.Status, c)
	}
	now, err := chain.DepositScanner{RPC: e.rpc}.BlockHashes(e.ctx, []uint64{c[0].BlockNumber})
	if err != nil || now[c[0].BlockNumber] == c[0].BlockHash {
		t.Fatalf("the recorded block is canonical (%v, %v); want replaced", now, err)
	}
	if last := e.last(id); last.Type != receipt.EventFailureIgnored {
		t.Fatalf("the log's last event %s; want the chain's withdrawal recorded as ignored", last.Type)
	} else if ig := e.decode(last).(receipt.FailureIgnored); ig.Code != receipt.CodeChainWithdrawn || ig.StatusAtArrival != receipt.StatusPaid {
		t.Fatalf("the withdrawal recorded as %+v", ig)
	}
	// The same signed transaction mined again: restored at its depth, still one confirmation.
	e.ok(e.sim.SendTransaction(e.ctx, tx))
	e.commit()
	e.step(d)
	if st := e.state(id); st.ChainWithdrawnTx == "" {
		t.Fatal("restored at depth 1")
	}
	for range 3 {
		e.commit()
		e.step(d)
	}
	if n := e.count(id, receipt.EventPaymentRestored); n != 1 || len(e.confirmations(id)) != 1 || e.count(id, receipt.EventFailureIgnored) != 1 {
		t.Fatalf("%d restorations, %d confirmations, %d flags; want 1 each", n, len(e.confirmations(id)), e.count(id, receipt.EventFailureIgnored))
	}
	r, err := e.sim.TransactionReceipt(e.ctx, tx.Hash())
	e.ok(err)
	last := e.last(id)
	if rs, ok := e.decode(last).(receipt.PaymentRestored); !ok || rs.BlockHash != strings.ToLower(r.BlockHash.Hex()) {
		t.Fatalf("the log's last event %s %+v; want PaymentRestored in block %s", last.Type, rs, r.BlockHash.Hex())
	}
	if st := e.state(id); st.Status != receipt.StatusPaid || st.ChainWithdrawnTx != "" {
		t.Fatalf("restored: %s, withdrawn %q", st.Status, st.ChainWithdrawnTx)
	}
	if _, err := receipt.DistributeSplit(e.state(id), receipt.SplitDistributed{At: 1}); err != nil || !e.distributable(id) {
		t.Fatalf("a restored receipt cannot be reconciled: %v, in the distributor's list %v", err, e.distributable(id))
	}
}

// TestDepositAuditFlagOutlivesADownStore: a deep reorg found while the datastore refuses appends
// is not lost: the audit finds it again at every step and records the flag once the datastore
// answers, once.
func TestDepositAuditFlagOutlivesADownStore(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	id, _, _ := e.paidThenReorgedAway(d)
	store := &switchedStore{Store: e.store}
	d.Events = store
	store.down.Store(true)
	failed := 0
	for range 4 {
		e.commit()
		if _, err := d.Step(e.ctx); err != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("no step reported the datastore down")
	}
	if n := e.count(id, receipt.EventFailureIgnored); n != 0 {
		t.Fatalf("%d flags with the datastore down", n)
	}
	store.down.Store(false)
	e.step(d)
	e.commit()
	e.step(d)
	if n := e.count(id, receipt.EventFailureIgnored); n != 1 {
		t.Fatalf("%d flags after the datastore came back, want 1", n)
	}
	e.notDistributable(id)
	e.commit()
	e.step(d)
	if n := e.count(id, receipt.EventFailureIgnored); n != 1 {
		t.Fatalf("flagged again: %d flags", n)
	}
}

// TestDepositAuditOutlivesARestart: a detector started after a payment was confirmed (a restart,
// or another instance) audits it from the receipts read model, so a deep reorg right after a
// restart is flagged all the same.
func TestDepositAuditOutlivesARestart(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	id, _, paying := e.paidThenReorgedAway(e.detector())
	restarted := e.detector()
	for range 4 {
		e.commit()
		e.step(restarted)
	}
	if n := e.count(id, receipt.EventFailureIgnored); n != 1 {
		t.Fatalf("%d flags after the restart, want 1", n)
	}
	if st := e.state(id); st.Payment == nil || st.Payment.BlockHash != strings.ToLower(paying.Hex()) {
		t.Fatalf("the payment's block in the state: %+v, want %s", st.Payment, paying.Hex())
	}
	e.notDistributable(id)
}

// switchedStore refuses every append while down is set, as a datastore that went away.
type switchedStore struct {
	commands.Store
	down atomic.Bool
}

func (s *switchedStore) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, evs ...eventstore.EventData) (eventstore.AppendResult, error) {
	if s.down.Load() {
		return eventstore.AppendResult{}, errors.New("the datastore is down")
	}
	return s.Store.Append(ctx, stream, expected, evs...)
}

// paidThenReorgedAway pays a new receipt of 7 USD in USDC at its deposit address, has detector d
// record it paid at depth 2, then forks the chain from before the paying block, which drops the
// transaction. It returns the receipt, the signed transaction (to mine again) and the replaced
// paying block.
func (e *depositEnv) paidThenReorgedAway(d *settlement.DepositDetector) (string, *types.Transaction, common.Hash) {
	e.t.Helper()
	e.step(d)
	parent, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	st := e.receipt(700)
	id := st.Receipt.ReceiptID
	tx := e.payToken(e.usdc, st.Receipt.DepositAddress, 7_000_000)
	paying := e.commit()
	e.commit()
	res := e.step(d)
	if st := e.state(id); st.Status != receipt.StatusPaid || st.Payment.BlockHash != strings.ToLower(paying.Hex()) {
		e.t.Fatalf("depth 2: %s %+v\n%s", st.Status, st.Payment, e.paymentTrace(id, tx, paying, res))
	}
	e.ok(e.b.Fork(parent.Hash()))
	e.b.Rollback()
	e.poolEmpty() // the pool drops the forked-away transactions on its own goroutine
	e.b.Rollback()
	return id, tx, paying
}

// paymentTrace says where a payment the detector did not confirm went: the step's result, the
// transaction's block against the paying block and the head, and the receipt's events (a CI run
// once found a receipt still generated here, and the bare status told nothing more).
func (e *depositEnv) paymentTrace(id string, tx *types.Transaction, paying common.Hash, res settlement.StepResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "step: %+v\n", res)
	if r, err := e.sim.TransactionReceipt(e.ctx, tx.Hash()); err != nil {
		fmt.Fprintf(&b, "tx %s: no receipt: %v\n", tx.Hash(), err)
	} else {
		fmt.Fprintf(&b, "tx %s: block %d %s (status %d); the paying block %s\n", tx.Hash(), r.BlockNumber, r.BlockHash, r.Status, paying)
	}
	if h, err := e.sim.HeaderByNumber(e.ctx, nil); err == nil {
		fmt.Fprintf(&b, "head: %d %s\n", h.Number, h.Hash())
	}
	for _, re := range e.history(id) {
		fmt.Fprintf(&b, "event %d %s %s\n", re.Version, re.Type, re.Data)
	}
	return b.String()
}

// history is receipt id's events.
func (e *depositEnv) history(id string) []eventstore.RecordedEvent {
	e.t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	e.ok(err)
	return evs
}

func (e *depositEnv) last(id string) eventstore.RecordedEvent {
	h := e.history(id)
	return h[len(h)-1]
}

func (e *depositEnv) decode(re eventstore.RecordedEvent) receipt.Event {
	e.t.Helper()
	ev, err := receipt.Decode(re.Type, re.Data)
	e.ok(err)
	return ev
}

// count is how many events of type typ receipt id has.
func (e *depositEnv) count(id, typ string) int {
	n := 0
	for _, re := range e.history(id) {
		if re.Type == typ {
			n++
		}
	}
	return n
}

// confirmations are receipt id's PaymentConfirmed events.
func (e *depositEnv) confirmations(id string) []receipt.PaymentConfirmed {
	var out []receipt.PaymentConfirmed
	for _, re := range e.history(id) {
		if re.Type == receipt.EventConfirmed {
			out = append(out, e.decode(re).(receipt.PaymentConfirmed))
		}
	}
	return out
}

// notDistributable checks that receipt id, flagged, is out of the distributor's list and that
// the domain refuses to reconcile it.
func (e *depositEnv) notDistributable(id string) {
	e.t.Helper()
	if e.distributable(id) {
		e.t.Fatalf("the flagged receipt %s is in the distributor's list", id)
	}
	if _, err := receipt.DistributeSplit(e.state(id), receipt.SplitDistributed{At: 1}); !errors.Is(err, receipt.ErrWithdrawn) {
		e.t.Fatalf("reconciling the flagged receipt: %v, want ErrWithdrawn", err)
	}
}

// distributable reports whether receipt id is in the distributor's list (PaidReceipts).
func (e *depositEnv) distributable(id string) bool {
	e.t.Helper()
	list, err := pgstore.NewReceipts(e.pool).PaidReceipts(e.ctx, settlement.PaidCursor{}, 1000)
	e.ok(err)
	return slices.ContainsFunc(list, func(p settlement.PaidReceipt) bool { return p.ReceiptID == id })
}

// poolEmpty waits until the simulated chain's pool holds no transaction, pending or queued.
func (e *depositEnv) poolEmpty() {
	e.t.Helper()
	e.ok(chain.WaitPoolEmpty(e.ctx, e.rpc.Backend().Client()))
}
