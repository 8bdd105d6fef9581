package settlement_test

import (
	"context"
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
)

// recordedWebhooks records what is queued: event, key and the payload's status.
type recordedWebhooks struct {
	mu    sync.Mutex
	queue []string
}

func (r *recordedWebhooks) Queue(_ context.Context, event, key, _, _ string, p map[string]any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queue = append(r.queue, event+" "+key+" "+p["status"].(string))
	return nil
}

// A permission the customer revoked on chain ends the subscription at its next charge: the charge
// fails (SubscriptionChargeFailed) and SubscriptionPermissionRevoked makes it ended, the merchant's
// charge_failed says ended, and later runs try nothing more. Before, the subscription stayed
// active (past_due after three) and every daily run claimed it, read the chain and recorded
// another failure with another charge_failed webhook, for ever.
func TestRevokedPermissionEndsTheSubscriptionOnce(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	id := e.subscribe(customer, "plan_monthly")
	e.listed(id) // due in the read model, as the daily run finds it
	revokeOnChain(t, e, customer, id)
	hooks := &recordedWebhooks{}
	h := e.handler(nil)
	h.Notify, h.RetryAfter = hooks, 0 // a failed period may be claimed again at once
	before := e.balance(customer.Address.Hex())
	res, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultFailed || res.Reason != subscription.ReasonRevoked {
		t.Fatalf("charge of a revoked permission: %+v %v", res, err)
	}
	st := e.state(id)
	if st.Status != subscription.StatusEnded || st.Charges != 0 || st.ConsecutiveFailures != 1 {
		t.Fatalf("after the refused charge: status %q, charges %d, failures %d; want ended, 0, 1", st.Status, st.Charges, st.ConsecutiveFailures)
	}
	// The next daily runs: nothing is claimed, read or recorded.
	for range 2 {
		run, err := h.ChargeDue(e.ctx, eventstore.Metadata{})
		if err != nil || run.Failed != 0 || run.Succeeded != 0 {
			t.Fatalf("a later run: %+v %v", run, err)
		}
	}
	if _, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: id}); err == nil {
		t.Fatal("a charge of the ended subscription was accepted")
	}
	if st := e.state(id); st.ConsecutiveFailures != 1 || st.Status != subscription.StatusEnded {
		t.Fatalf("after later runs: failures %d status %q", st.ConsecutiveFailures, st.Status)
	}
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if want := "subscription.charge_failed " + id + ":0:failed:1 ended"; len(hooks.queue) != 1 || hooks.queue[0] != want {
		t.Fatalf("webhooks %v, want [%s]", hooks.queue, want)
	}
	if e.balance(customer.Address.Hex()).Cmp(before) != 0 {
		t.Fatal("the customer was charged")
	}
}

// revokeOnChain has customer revoke subscription id's permission on the manager.
func revokeOnChain(t *testing.T, e *chargeEnv, customer chain.DevAccount, id string) {
	t.Helper()
	perm, err := chain.SpendPermissionContract(e.state(id).Permission)
	if err != nil {
		t.Fatal(err)
	}
	m, err := contracts.NewSpendPermissionManager(e.dev.SpendPermissionManager, e.rpc.Backend())
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := bind.NewKeyedTransactorWithChainID(customer.Key, big.NewInt(chain.DevChainID))
	opts.Context = e.ctx
	tx, err := m.Revoke(opts, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		t.Fatal(err)
	}
}
