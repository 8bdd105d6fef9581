package settlement_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// settleOperatorTxs runs the split distributor's settle pass over the operator's ledger, as
// serve does every few seconds: it records every signed transaction of the key it finds mined,
// or dropped (its nonce taken), whatever its kind, charges' ones included.
func (e *chargeEnv) settleOperatorTxs() {
	e.tb.Helper()
	if _, err := settlement.NewOperatorSender(e.op.Operator, pgstore.NewOperatorTransactions(e.pool)).Settle(e.ctx); err != nil {
		e.tb.Fatalf("the distributor's settle pass: %v", err)
	}
}

// waitDropped waits until the recorded transaction of kind can never be mined (its nonce taken
// at the confirmation depth).
func (e *chargeEnv) waitDropped(kind string) {
	e.tb.Helper()
	var raw []byte
	if err := e.pool.QueryRow(e.ctx, `SELECT raw_tx FROM operator_transactions WHERE kind = $1`, kind).Scan(&raw); err != nil {
		e.tb.Fatal(err)
	}
	wait.Until(e.tb, "the taken nonce at the confirmation depth", 30*time.Second, func() bool {
		gone, err := e.op.Dropped(e.ctx, raw)
		return err == nil && gone
	})
}

// As TestChargeSubscriptionNonceTakenIsChargedAgain, but the split distributor's settle pass
// (serve runs it every few seconds, the charging recovery only after a charge's 2-minute lease)
// sees the dropped approval first and records it reverted. The recovery must still find it
// dropped and charge the period again. Before, it only looked at the transactions still signed:
// the approval was awaited for ever, the row stayed open and the subscription was never charged
// again (409 "in progress" on every charge).
func TestChargeSubscriptionNonceTakenSettledByTheDistributorIsChargedAgain(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	id := e.subscribe(customer, "plan_monthly")
	before := e.balance(customer.Address.Hex())
	if _, err := e.handler(dropBroadcasts{e.op}).Handle(e.ctx, settlement.ChargeSubscription{ID: id}); err == nil {
		t.Fatal("the crashing charge succeeded")
	}
	e.takeOperatorNonce()
	e.waitDropped("approve")
	e.settleOperatorTxs()
	if n := e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'approve' AND status = 'reverted'`); n != 1 {
		t.Fatalf("%d approvals recorded reverted by the settle pass, want 1", n)
	}
	e.recoverCharged("after the nonce was taken and settled", id, customer.Address.Hex(), before, 5*time.Second)
	if st := e.state(id); st.Charges != 1 || st.ConsecutiveFailures != 0 {
		t.Fatalf("charges %d, failures %d", st.Charges, st.ConsecutiveFailures)
	}
}

// dropTransfers sends every transaction but the transfers to splits (USDC's transfer), and dies
// when the transfers' receipts are awaited: the crash between a transfer's intent and its
// broadcast, after the customer's spend is mined.
type dropTransfers struct {
	settlement.ChargeChain
	usdc string
}

func (d dropTransfers) BroadcastAll(ctx context.Context, raws [][]byte) error {
	var send [][]byte
	for _, raw := range raws {
		var tx types.Transaction
		if err := tx.UnmarshalBinary(raw); err != nil {
			return err
		}
		if tx.To() == nil || !strings.EqualFold(tx.To().Hex(), d.usdc) {
			send = append(send, raw)
		}
	}
	return d.ChargeChain.BroadcastAll(ctx, send)
}

// A crash after the transfer to the split is recorded and before it is broadcast, its nonce then
// taken, and the distributor's settle pass records the transfer reverted first: the customer's
// money is at the operator. The recovery must send a new transfer and record the charge. Before,
// the dropped transfer was awaited for ever: the customer was debited, the log never said so, and
// the merchant was never paid.
func TestChargeSubscriptionTransferDroppedAndSettledIsSentAgain(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	id := e.subscribe(customer, "plan_monthly")
	before := e.balance(customer.Address.Hex())
	crashing := e.handler(dropTransfers{ChargeChain: e.op, usdc: e.op.USDC()})
	crashing.Await = 3 * time.Second
	if res, err := crashing.Handle(e.ctx, settlement.ChargeSubscription{ID: id}); err != nil || res.Status != settlement.ResultPending {
		t.Fatalf("the crashing charge: %+v %v, want pending", res, err)
	}
	e.takeOperatorNonce()
	e.waitDropped("transfer")
	e.settleOperatorTxs()
	e.recoverCharged("after the transfer's nonce was taken and settled", id, customer.Address.Hex(), before, 10*time.Second)
	if st := e.state(id); st.Charges != 1 {
		t.Fatalf("charges %d, want 1", st.Charges)
	}
}

// recoverCharged runs the charging recovery of a restarted process (the crashed one's lease over,
// await its bound on a transaction's receipt) on subscription id, and fails unless it charges the
// period and the customer (paid before from wallet) paid one price; what names the situation.
func (e *chargeEnv) recoverCharged(what, id, wallet string, before *big.Int, await time.Duration) *settlement.ChargeSubscriptionsHandler {
	e.tb.Helper()
	restarted := e.handler(nil)
	restarted.Lease, restarted.Await = 0, await
	res, err := restarted.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultCharged {
		e.tb.Fatalf("%s: %+v %v, want charged", what, res, err)
	}
	if d := diff(before, e.balance(wallet)); d.Cmp(big.NewInt(9_990_000)) != 0 {
		e.tb.Fatalf("customer paid %s, want one price", d)
	}
	return restarted
}
