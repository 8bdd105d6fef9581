package settlement_test

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
)

// CHAIN_OPERATOR_KEY changed after a customer signed (docs/security.md's rotation: "set a new
// key"): the permission names the old operator as its spender, and only it may spend. The charge
// is skipped, naming both accounts; nothing is signed by the new operator and no failure is
// recorded against the customer. Before, the new operator paid for the approval, the spend's
// estimate reverted and the run recorded SubscriptionChargeFailed (past_due after three days).
func TestChargeOfAPermissionForAnotherSpenderIsSkipped(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	customer := e.dev.Accounts[0]
	id := e.subscribe(customer, "plan_monthly")
	before := e.balance(customer.Address.Hex())
	rotated, err := chain.NewChargeOperator(e.dev.Accounts[1].KeyHex(), chain.DevChainID, e.rpc, e.dev.Tokens, e.dev.SpendPermissionManager.Hex())
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.handler(rotated).Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultSkipped || !strings.Contains(res.Reason, strings.ToLower(e.dev.Operator.Address.Hex())) {
		t.Fatalf("charge with another operator: %+v %v, want skipped naming the permission's spender", res, err)
	}
	if st := e.state(id); st.ConsecutiveFailures != 0 || st.Charges != 0 || string(st.Status) != "active" {
		t.Fatalf("failures %d, charges %d, status %s: want nothing recorded", st.ConsecutiveFailures, st.Charges, st.Status)
	}
	if n := e.count(`SELECT count(*) FROM operator_transactions WHERE sender = $1`, strings.ToLower(rotated.Sender())); n != 0 {
		t.Fatalf("the new operator signed %d transactions for a permission it cannot spend", n)
	}
	if d := diff(before, e.balance(customer.Address.Hex())); d.Sign() != 0 {
		t.Fatalf("customer paid %s", d)
	}
	e.listed(id)
	run, err := e.handler(rotated).ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil || run.Failed != 0 || len(run.Results) != 1 || run.Results[0].Status != settlement.ResultSkipped {
		t.Fatalf("daily run with another operator: %+v %v, want one skipped", run, err)
	}
}
