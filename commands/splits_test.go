package commands_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// A split deployed again (SplitRedeployed, recorded by POST /api/split/deploy on this instance or
// another) moves the onramp's destination: the reader remembered a configured split for the
// process's life, so every onramp session (and deposit address) after the redeployment still
// paid the address the split left, which holds no code on the chain followed: the funds were lost.
func TestSplitsFollowARedeployment(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	splits := commands.NewSplits(e.store).WithClock(e.now)
	f := newFakeProcessor()
	start := commands.NewStartOnrampHandler(e.store, splits, f, noPrices{}, e.now)
	if _, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: e.receipt(payMerchant, "USD", 500)}); err != nil {
		t.Fatal(err)
	}
	moved := "0x" + strings.Repeat("7", 40)
	if _, err := commands.RedeploySplit(e.ctx, e.store, e.at, eventstore.Metadata{}, payMerchant, moved, "no code"); err != nil {
		t.Fatal(err)
	}
	e.at = e.at.Add(commands.SplitFreshness)
	if _, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: e.receipt(payMerchant, "USD", 500)}); err != nil {
		t.Fatal(err)
	}
	if got := f.created[1].DestinationWallet; got != moved {
		t.Fatalf("onramp session after the redeployment pays %s, want the split's new address %s", got, moved)
	}
}

// While the split's stream cannot be read (the datastore down), the remembered split is used:
// degraded orders need it.
func TestSplitsRememberedWhileTheStoreFails(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	store := &failingReads{Store: e.store}
	splits := commands.NewSplits(store).WithClock(e.now)
	if _, err := splits.Require(e.ctx, payMerchant); err != nil {
		t.Fatal(err)
	}
	store.fail.Store(true)
	e.at = e.at.Add(10 * commands.SplitFreshness)
	st, err := splits.Require(e.ctx, payMerchant)
	if err != nil || st.Address != payContract {
		t.Fatalf("with the store failing: %+v %v, want the remembered split", st, err)
	}
	if _, err := splits.Require(e.ctx, payOther); err == nil {
		t.Fatal("a split never read was answered while the store fails")
	}
}

// failingReads fails every stream read while fail is set.
type failingReads struct {
	commands.Store
	fail atomic.Bool
}

func (f *failingReads) ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	if f.fail.Load() {
		return nil, errors.New("connection refused")
	}
	return f.Store.ReadStream(ctx, stream, from, limit)
}
