package settlement_test

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// takeOperatorNonce has a transaction of the operator key sent outside the ledger (as serve's
// factory deployment is) take the key's next nonce, and waits until it is mined.
func (e *chargeEnv) takeOperatorNonce() {
	e.tb.Helper()
	b := e.rpc.Backend()
	from := e.dev.Operator.Address
	nonce, err := b.PendingNonceAt(e.ctx, from)
	if err != nil {
		e.tb.Fatal(err)
	}
	tip, err := b.SuggestGasTipCap(e.ctx)
	if err != nil {
		e.tb.Fatal(err)
	}
	head, err := b.HeaderByNumber(e.ctx, nil)
	if err != nil {
		e.tb.Fatal(err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(chain.DevChainID), Nonce: nonce, GasTipCap: tip,
		GasFeeCap: feeCap, Gas: 21_000, To: &from, Value: big.NewInt(0)}), types.LatestSignerForChainID(big.NewInt(chain.DevChainID)), e.dev.Operator.Key)
	if err != nil {
		e.tb.Fatal(err)
	}
	if err := b.SendTransaction(e.ctx, tx); err != nil {
		e.tb.Fatal(err)
	}
	wait.Until(e.tb, "the nonce-taking transaction mined", 30*time.Second, func() bool {
		r, err := b.TransactionReceipt(e.ctx, tx.Hash())
		return err == nil && r != nil
	})
}

// A crash after an approval is recorded and before it is broadcast, then another transaction of
// the operator key takes its nonce: the recorded approval can never be mined. The recovery finds
// it dropped, frees the period (nothing was charged) and the charge goes through with a new
// approval. Before, the same bytes were sent again ("nonce too low", ignored) and awaited for
// ever: the charge stayed pending, its period held, and the subscription was never charged again.
func TestChargeSubscriptionNonceTakenIsChargedAgain(t *testing.T) {
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
	restarted := e.recoverCharged("after the nonce was taken", id, customer.Address.Hex(), before, 5*time.Second)
	if st := e.state(id); st.Charges != 1 || st.ConsecutiveFailures != 0 {
		t.Fatalf("charges %d, failures %d", st.Charges, st.ConsecutiveFailures)
	}
	if n := e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'approve' AND status = 'signed'`); n != 0 {
		t.Fatalf("%d approvals left signed", n)
	}
	if _, err := restarted.Handle(e.ctx, settlement.ChargeSubscription{ID: id}); !errors.Is(err, subscription.ErrNotDue) {
		t.Fatalf("a second charge in the period: %v, want not due", err)
	}
}
