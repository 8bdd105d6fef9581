package commands_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// appendNewer appends to stream, at version after, an event of a type this build does not know,
// as a newer build (a rollback, a rolling upgrade) would have written it.
func appendNewer(t *testing.T, store eventstore.Store, stream string, after uint64, typ string) {
	t.Helper()
	if _, err := store.Append(context.Background(), stream, eventstore.Exact(after),
		eventstore.EventData{ID: uuid.New(), Type: typ, Data: json.RawMessage(`{"at":2000}`)}); err != nil {
		t.Fatal(err)
	}
}

// wantRefusedAt checks that err refuses the stream for its unknown event at version 2 (an
// internal error, named for the log) and that the stream still ends there: nothing was decided
// on the state that left it out.
func wantRefusedAt(t *testing.T, what string, err, sentinel error, store eventstore.Store, stream string) {
	t.Helper()
	if !errors.Is(err, sentinel) || !strings.Contains(err.Error(), stream+" at version 2") {
		t.Fatalf("%s: %v, want %v naming %s at version 2", what, err, sentinel, stream)
	}
	var refusal *commands.Refusal
	if errors.As(err, &refusal) {
		t.Fatalf("%s: %v is a refusal the caller could act on, want an internal error", what, err)
	}
	evs, err := store.ReadStream(context.Background(), stream, 1, 10)
	if err != nil || len(evs) != 2 {
		t.Fatalf("%s: %s holds %d events (%v), want the 2 it had", what, stream, len(evs), err)
	}
}

// TestSubscriptionCommandsRefuseAnEventTheyDoNotKnow: a subscription whose stream holds an event
// of a type this build does not know (a newer build paused it, say) is refused by every command
// that loads it, as a receipt is, instead of being read without the event: an older build would
// otherwise charge, or answer as active, a subscription the newer one paused or cancelled.
func TestSubscriptionCommandsRefuseAnEventTheyDoNotKnow(t *testing.T) {
	t.Parallel()
	store := postgres.New(pgtest.Pool(t))
	ctx := context.Background()
	const id = "sub_newer"
	customer := "0x" + strings.Repeat("c", 40)
	created := subscription.Created{SubscriptionID: id, PlanID: "plan_1", Merchant: "0x" + strings.Repeat("d", 40), Customer: customer,
		Plan:       subscription.Plan{Name: "Pro", PriceUSD: 999, Period: subscription.Monthly, PeriodSeconds: 30 * 86400},
		PriceUnits: "9990000", CreatedAt: 1000, NextChargeAt: 1000}
	ev, err := commands.NewEvent(uuid.New(), subscription.EventCreated, created, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	stream := subscription.Stream(id)
	if _, err := store.Append(ctx, stream, eventstore.NoStream(), ev); err != nil {
		t.Fatal(err)
	}
	appendNewer(t, store, stream, 1, "SubscriptionPaused")

	_, err = commands.LoadSubscription(ctx, store, id)
	wantRefusedAt(t, "load", err, subscription.ErrUnknownEvent, store, stream)
	_, err = commands.NewAggregates(store).Subscription(ctx, id)
	wantRefusedAt(t, "aggregates", err, subscription.ErrUnknownEvent, store, stream)
	decided := false
	_, err = commands.ChangeSubscription(ctx, store, id, eventstore.Metadata{}, func(s subscription.State) ([]subscription.Event, error) {
		decided = true
		return []subscription.Event{subscription.Charged{PeriodIndex: 0, AmountUnits: s.PriceUnits, ChargedAt: 3000,
			NextChargeAt: 1000 + 30*86400*1000}}, nil
	})
	wantRefusedAt(t, "change", err, subscription.ErrUnknownEvent, store, stream)
	if decided {
		t.Fatal("change: decided on a state without the stream's newer event")
	}
}

// TestSplitCommandsRefuseAnEventTheyDoNotKnow: a merchant's split stream, or a split address's,
// that holds an event of a type this build does not know is refused by the commands that load it
// (reads, configure, redeploy, the owner check), instead of being read without it: an older
// build would otherwise release a payment to recipients a newer build changed, or judge a
// contract's owner by a claim a newer build released.
func TestSplitCommandsRefuseAnEventTheyDoNotKnow(t *testing.T) {
	t.Parallel()
	store := postgres.New(pgtest.Pool(t))
	ctx := context.Background()
	at := time.UnixMilli(1_795_000_000_000)
	now := func() time.Time { return at }
	if _, err := commands.ConfigureSplit(ctx, store, at, eventstore.Metadata{}, split.Configure{Merchant: payMerchant, Address: payContract, Platform: payPlatform}); err != nil {
		t.Fatal(err)
	}
	stream := commands.SplitStream(payMerchant)
	appendNewer(t, store, stream, 1, "SplitRecipientsChanged")

	_, err := commands.LoadSplit(ctx, store, payMerchant)
	wantRefusedAt(t, "load", err, commands.ErrUnknownSplitEvent, store, stream)
	_, err = commands.NewAggregates(store).Split(ctx, payMerchant)
	wantRefusedAt(t, "aggregates", err, commands.ErrUnknownSplitEvent, store, stream)
	_, err = commands.ConfigureSplit(ctx, store, at, eventstore.Metadata{}, split.Configure{Merchant: payMerchant, Address: payOther, Platform: payPlatform})
	wantRefusedAt(t, "configure", err, commands.ErrUnknownSplitEvent, store, stream)
	_, err = commands.RedeploySplit(ctx, store, at, eventstore.Metadata{}, payMerchant, payOther, "no code")
	wantRefusedAt(t, "redeploy", err, commands.ErrUnknownSplitEvent, store, stream)

	// The address's owner stream: a newer build's event after the claim.
	h := commands.NewConfigureSplitHandler(store, payPlatform, now)
	owner := split.AddressStream(payOther)
	claim, err := commands.NewEvent(uuid.New(), split.EventAddressClaimed, split.AddressClaimed{Address: payOther, Merchant: payMerchant}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(ctx, owner, eventstore.NoStream(), claim); err != nil {
		t.Fatal(err)
	}
	appendNewer(t, store, owner, 1, "SplitAddressReleased")
	err = h.CheckOwner(ctx, "0x"+strings.Repeat("e", 40), payOther)
	wantRefusedAt(t, "owner check", err, commands.ErrUnknownSplitEvent, store, owner)
}

// TestSplitsForgetARememberedSplitWhoseStreamHasANewerEvent: the split reader answers a
// remembered split while its stream cannot be read (the datastore down), but not when the stream
// holds an event this build cannot read: a newer build may have changed the split, and the
// releases and orders that use it (split_distributor, subscription releases) would go on paying
// the remembered recipients for the process's life.
func TestSplitsForgetARememberedSplitWhoseStreamHasANewerEvent(t *testing.T) {
	t.Parallel()
	store := postgres.New(pgtest.Pool(t))
	ctx := context.Background()
	at := time.UnixMilli(1_795_000_000_000)
	if _, err := commands.ConfigureSplit(ctx, store, at, eventstore.Metadata{}, split.Configure{Merchant: payMerchant, Address: payContract, Platform: payPlatform}); err != nil {
		t.Fatal(err)
	}
	splits := commands.NewSplits(store).WithClock(func() time.Time { return at })
	if st, err := splits.Get(ctx, payMerchant); err != nil || !st.Configured {
		t.Fatalf("get: %+v %v", st, err)
	}
	stream := commands.SplitStream(payMerchant)
	appendNewer(t, store, stream, 1, "SplitRecipientsChanged")
	at = at.Add(commands.SplitFreshness)
	_, err := splits.Get(ctx, payMerchant)
	wantRefusedAt(t, "get", err, commands.ErrUnknownSplitEvent, store, stream)
	_, err = splits.Require(ctx, payMerchant)
	wantRefusedAt(t, "require", err, commands.ErrUnknownSplitEvent, store, stream)
}
