package commands_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

const (
	subManager  = "0x1111111111111111111111111111111111111111"
	subOperator = "0x2222222222222222222222222222222222222222"
	subUSDC     = "0x3333333333333333333333333333333333333333"
)

type subPlans map[string]commands.SubscriptionPlan

func (f subPlans) SubscriptionPlan(_ context.Context, id string) (commands.SubscriptionPlan, bool, error) {
	p, ok := f[id]
	return p, ok, nil
}

// subCreation is a fresh database, two merchants' monthly plans at 9.99 USD, a customer and the
// create handler on chain 8453.
type subCreation struct {
	t        *testing.T
	store    *postgres.Store
	h        *commands.CreateSubscriptionHandler
	key      *ecdsa.PrivateKey
	customer string
}

func newSubCreation(t *testing.T) subCreation {
	t.Helper()
	store := postgres.New(pgtest.Pool(t))
	plans := subPlans{
		"plan_a": {ID: "plan_a", Merchant: "0x" + strings.Repeat("a", 40), Name: "A", Price: 999, Period: "MONTHLY", Active: true},
		"plan_b": {ID: "plan_b", Merchant: "0x" + strings.Repeat("b", 40), Name: "B", Price: 999, Period: "MONTHLY", Active: true},
	}
	key, _ := crypto.GenerateKey()
	h := commands.NewCreateSubscriptionHandler(store, plans, chain.SpendPermissions{ChainID: 8453, Manager: subManager},
		subOperator, subUSDC, time.Now)
	return subCreation{t: t, store: store, h: h, key: key, customer: strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())}
}

// permission is a monthly permission for 9.99 USD a period bound to plan (extraData).
func (e subCreation) permission(plan string) subscription.Permission {
	now := time.Now().Unix()
	return subscription.Permission{Account: e.customer, Spender: subOperator, Token: subUSDC, Allowance: "9990000",
		Period: 30 * 86400, Start: now - 60, End: now + 365*86400, Salt: "7", ExtraData: subscription.PlanBinding(plan)}
}

// sign signs p as a wallet does (v 27/28, low s).
func (e subCreation) sign(p subscription.Permission) string {
	e.t.Helper()
	cp, err := chain.SpendPermissionContract(p)
	if err != nil {
		e.t.Fatal(err)
	}
	sig, err := chain.SignTypedData(chain.SpendPermissionTypedData(8453, subManager, cp), e.key)
	if err != nil {
		e.t.Fatal(err)
	}
	return sig
}

func (e subCreation) create(plan string, p subscription.Permission, sig string) (commands.SubscriptionResult, error) {
	return e.h.Handle(context.Background(), commands.CreateSubscription{PlanID: plan, Customer: e.customer, Permission: p, Signature: sig})
}

func wantKind(t *testing.T, what string, err error, kind commands.Kind) *commands.Refusal {
	t.Helper()
	var r *commands.Refusal
	if !errors.As(err, &r) || r.Kind != kind {
		t.Fatalf("%s: %v, want a refusal of kind %d", what, err, kind)
	}
	return r
}

// TestCreateSubscriptionOnePermissionOneSubscription: one signed permission backs at most one
// subscription. The manager keys its allowance on the permission's hash, so a second
// subscription on it (another merchant's plan, or the same values spelled otherwise) would
// spend the first one's allowance or charge the customer twice a period: 409, whatever the plan
// and the spelling. The first creation stores the values in one spelling.
func TestCreateSubscriptionOnePermissionOneSubscription(t *testing.T) {
	t.Parallel()
	e := newSubCreation(t)
	p := e.permission("plan_a")
	sig := e.sign(p)
	first, err := e.create("plan_a", p, sig)
	if err != nil {
		t.Fatal(err)
	}
	wantKind(t, "the same creation again", func() error { _, err := e.create("plan_a", p, sig); return err }(), commands.KindConflict)
	wantKind(t, "the same permission on another merchant's plan", func() error { _, err := e.create("plan_b", p, sig); return err }(), commands.KindConflict)
	for _, f := range []func(*subscription.Permission){
		func(p *subscription.Permission) { p.Salt = "0x7" },
		func(p *subscription.Permission) { p.Salt = "007" },
		func(p *subscription.Permission) { p.Allowance = "09990000" },
		func(p *subscription.Permission) { p.ExtraData = "0x" + strings.ToUpper(p.ExtraData[2:]) },
		func(p *subscription.Permission) { p.Account = crypto.PubkeyToAddress(e.key.PublicKey).Hex() }, // checksummed
	} {
		q := p
		f(&q)
		// The same signature: the typed data (and so the manager's hash) is the same.
		for _, plan := range []string{"plan_a", "plan_b"} {
			res, err := e.create(plan, q, sig)
			r := wantKind(t, "salt "+q.Salt+" allowance "+q.Allowance+" extraData "+q.ExtraData+" on "+plan, err, commands.KindConflict)
			if !strings.Contains(r.Message, first.State.ID) || res.State.ID != "" {
				t.Fatalf("conflict %q does not name %s", r.Message, first.State.ID)
			}
		}
	}
	st, err := commands.LoadSubscription(context.Background(), e.store, first.State.ID)
	if err != nil || st.Version != 1 {
		t.Fatalf("%+v %v: one creation event", st, err)
	}
	// Another salt is another permission: a subscription of its own.
	other := e.permission("plan_b")
	other.Salt = "8"
	if _, err := e.create("plan_b", other, e.sign(other)); err != nil {
		t.Fatalf("another permission: %v", err)
	}
}

// TestCreateSubscriptionStoresTheCanonicalPermission: what is stored does not depend on how the
// values were written.
func TestCreateSubscriptionStoresTheCanonicalPermission(t *testing.T) {
	t.Parallel()
	e := newSubCreation(t)
	p := e.permission("plan_a")
	p.Salt, p.Allowance, p.ExtraData = "0x07", "009990000", "0x"+strings.ToUpper(p.ExtraData[2:])
	res, err := e.create("plan_a", p, e.sign(p))
	if err != nil {
		t.Fatal(err)
	}
	got := res.State.Permission
	if got.Salt != "7" || got.Allowance != "9990000" || got.ExtraData != subscription.PlanBinding("plan_a") {
		t.Fatalf("stored %+v", got)
	}
}

// TestCreateSubscriptionSignatureForm: the manager (OpenZeppelin ECDSA) refuses v 0/1 and s in
// the upper half of the curve order. v 0/1 is accepted and stored as 27/28; a high-s signature
// is refused with 400 naming it (it could never be charged).
func TestCreateSubscriptionSignatureForm(t *testing.T) {
	t.Parallel()
	e := newSubCreation(t)
	raw := func(p subscription.Permission) []byte {
		cp, err := chain.SpendPermissionContract(p)
		if err != nil {
			t.Fatal(err)
		}
		hash, _, err := apitypes.TypedDataAndHash(chain.SpendPermissionTypedData(8453, subManager, cp))
		if err != nil {
			t.Fatal(err)
		}
		sig, err := crypto.Sign(hash, e.key) // v 0 or 1, low s
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	p := e.permission("plan_a")
	low := raw(p)
	res, err := e.create("plan_a", p, hexutil.Encode(low))
	if err != nil {
		t.Fatalf("v 0/1: %v", err)
	}
	stored, _ := hexutil.Decode(res.State.Signature)
	if stored[64] != low[64]+27 || string(stored[:64]) != string(low[:64]) {
		t.Fatalf("stored signature %s, want v %d", res.State.Signature, low[64]+27)
	}

	q := e.permission("plan_a")
	q.Salt = "9"
	high := raw(q)
	s := new(big.Int).SetBytes(high[32:64])
	new(big.Int).Sub(crypto.S256().Params().N, s).FillBytes(high[32:64])
	high[64] = (high[64] ^ 1) + 27 // the same signer with s' = n - s
	if signer, err := chain.RecoverTypedDataSigner(func() apitypes.TypedData {
		cp, _ := chain.SpendPermissionContract(q)
		return chain.SpendPermissionTypedData(8453, subManager, cp)
	}(), hexutil.Encode(high)); err != nil || signer != e.customer {
		t.Fatalf("the high-s signature should recover the customer: %s %v", signer, err)
	}
	_, err = e.create("plan_a", q, hexutil.Encode(high))
	r := wantKind(t, "high s", err, commands.KindInvalid)
	if r.Code != "invalid_input" || !strings.Contains(r.Message, "upper half") {
		t.Fatalf("high s: %+v", r)
	}
}

// TestCreateSubscriptionPermissionOnlyOnItsPlan: a customer signs a permission for merchant A's
// plan; whoever holds the signature before it is submitted (a script on the page, a relay) tries
// it on merchant B's plan of the same price and period first. Before, that made a subscription
// paying B every period, and the customer's own creation on A was refused (one permission, one
// subscription). The permission names its plan (extraData), so B's plan refuses it (400 naming
// the extraData the plan needs), nothing is stored, and the customer's creation on A goes through.
func TestCreateSubscriptionPermissionOnlyOnItsPlan(t *testing.T) {
	t.Parallel()
	e := newSubCreation(t)
	p := e.permission("plan_a")
	sig := e.sign(p)
	_, err := e.create("plan_b", p, sig)
	r := wantKind(t, "a permission for plan_a on plan_b", err, commands.KindInvalid)
	if r.Code != "invalid_input" || !strings.Contains(r.Message, subscription.PlanBinding("plan_b")) {
		t.Fatalf("on another merchant's plan: %+v", r)
	}
	res, err := e.create("plan_a", p, sig)
	if err != nil {
		t.Fatalf("the customer's own creation after the attempt: %v", err)
	}
	if res.State.PlanID != "plan_a" || res.State.Merchant != "0x"+strings.Repeat("a", 40) {
		t.Fatalf("subscription %+v, want plan_a of merchant a", res.State)
	}
	// A permission signed as the docs said before (extraData 0x) names no plan: refused on any.
	old := e.permission("plan_a")
	old.Salt, old.ExtraData = "11", "0x"
	r = wantKind(t, "an unbound permission", func() error { _, err := e.create("plan_a", old, e.sign(old)); return err }(), commands.KindInvalid)
	if !strings.Contains(r.Message, "extraData") {
		t.Fatalf("unbound: %+v", r)
	}
}
