package settlement_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/internal/wait"
)

// liveCount is serve's commands.LiveSubscriptions (cmd/payledger/app): the read model's count.
type liveCount struct{ pool *pgxpool.Pool }

func (l liveCount) LiveSubscriptions(ctx context.Context, customer, planID string) (int, error) {
	var n int
	err := l.pool.QueryRow(ctx, `SELECT count(*) FROM subscriptions
		WHERE customer = $1 AND plan_id = $2 AND status <> 'cancelled' AND status <> 'ended'`, customer, planID).Scan(&n)
	return n, err
}

// refusal is err's refusal of kind, or fails the test.
func refusal(t *testing.T, err error, kind commands.Kind, says string) {
	t.Helper()
	var r *commands.Refusal
	if !errors.As(err, &r) || r.Kind != kind || !strings.Contains(r.Message, says) {
		t.Fatalf("got %v, want a %v refusal saying %q", err, kind, says)
	}
}

// A creation from a wallet whose permission cannot be charged its first period (a fresh wallet:
// no USDC) is refused 400 and records nothing; a funded wallet holds at most 3 live subscriptions
// to a plan (409 past them) and subscribes again once it cancels one. Before, a fresh wallet's
// free signature created a subscription to any merchant's plan, without end, each charged and
// failing every period with a charge_failed webhook to the merchant.
func TestCreateSubscriptionIsBoundedByFundsAndPerPlan(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	h := e.creator()
	h.Funds, h.Live = e.op, liveCount{pool: e.pool}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	fresh := chain.DevAccount{Address: crypto.PubkeyToAddress(key.PublicKey), Key: key}
	cmd := e.createCmd(fresh, "plan_monthly")
	_, err = h.Handle(e.ctx, cmd)
	refusal(t, err, commands.KindInvalid, "insufficient USDC balance")
	if _, err := e.creator().Handle(e.ctx, cmd); err != nil { // its stream is still new
		t.Fatalf("the refused creation recorded something: %v", err)
	}

	customer := e.dev.Accounts[0]
	e.approveManager(customer)
	var ids []string
	for range 3 {
		res, err := h.Handle(e.ctx, e.createCmd(customer, "plan_monthly"))
		if err != nil {
			t.Fatalf("creation within the bound: %v", err)
		}
		ids = append(ids, res.State.ID)
		e.listed(res.State.ID)
	}
	_, err = h.Handle(e.ctx, e.createCmd(customer, "plan_monthly"))
	refusal(t, err, commands.KindConflict, "already holds 3 subscriptions to this plan")
	cancel := commands.NewCancelSubscriptionHandler(e.store, time.Now)
	if _, err := cancel.Handle(e.ctx, commands.CancelSubscription{ID: ids[0], By: customer.Address.Hex()}); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the cancellation in the read model", 15*time.Second, func() bool {
		n, err := liveCount{e.pool}.LiveSubscriptions(e.ctx, strings.ToLower(customer.Address.Hex()), "plan_monthly")
		return err == nil && n == 2
	})
	if _, err := h.Handle(e.ctx, e.createCmd(customer, "plan_monthly")); err != nil {
		t.Fatalf("creation after a cancellation: %v", err)
	}
}
