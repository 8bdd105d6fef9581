package commands_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
)

func TestConfigureSplit(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewConfigureSplitHandler(e.store, payPlatform, e.now)
	rs := func(list ...commands.SplitRecipient) *[]commands.SplitRecipient { return &list }
	for _, c := range []struct {
		name          string
		cmd           commands.ConfigureMerchantSplit
		code, message string
	}{
		{"no contract", commands.ConfigureMerchantSplit{}, "invalid_input", "splitAddress is required: a split contract address is required"},
		{"bad contract", commands.ConfigureMerchantSplit{Address: "0x1"}, "invalid_input", "invalid split: splitAddress must be"},
		{"empty list", commands.ConfigureMerchantSplit{Address: payContract, Recipients: rs()}, "invalid_input", "invalid split: between 1 and"},
		{"sum below", commands.ConfigureMerchantSplit{Address: payContract, Recipients: rs(commands.SplitRecipient{Address: payMerchant, SharesBps: 9999})},
			"invalid_input", "invalid split: sharesBps add up to 9999"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cmd.Merchant = payMerchant
			_, err := h.Handle(e.ctx, c.cmd)
			wantRefusal(t, err, c.code, c.message)
		})
	}
	// The default recipients need the platform's.
	_, err := commands.NewConfigureSplitHandler(e.store, "", e.now).Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: payMerchant, Address: payContract})
	wantRefusal(t, err, "platform_recipient_not_configured", "Platform recipient address not set up")

	res, err := h.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: payMerchant, Address: payContract})
	if err != nil || res.Idempotent || !res.State.Configured || res.State.Address != payContract || len(res.State.Recipients) != 2 ||
		res.State.Recipients[0].Address != payMerchant || res.State.Recipients[1].Address != payPlatform || res.Position == (commands.SplitResult{}).Position {
		t.Fatalf("configured: %+v %v", res, err)
	}
	// Once configured, a split never changes: later calls answer it.
	again, err := h.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: payMerchant, Address: payOther, Recipients: rs(commands.SplitRecipient{Address: payOther, SharesBps: 10000})})
	if err != nil || !again.Idempotent || again.State.Address != payContract {
		t.Fatalf("again: %+v %v", again, err)
	}
}

// A split contract belongs to one merchant (DESIGN 9): another merchant naming it is refused
// with 409 conflict, also when both ask at once; its owner may name it again.
func TestConfigureSplitClaimedByAnotherMerchant(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewConfigureSplitHandler(e.store, payPlatform, e.now)
	if _, err := h.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: payMerchant, Address: payContract}); err != nil {
		t.Fatal(err)
	}
	_, err := h.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: payOther, Address: "0x" + strings.ToUpper(payContract[2:])})
	wantRefusal(t, err, "conflict", "This split contract is configured by another merchant")
	if st, _ := h.Current(e.ctx, payOther); st.Configured {
		t.Fatalf("the refused merchant's split is configured: %+v", st)
	}
	// Two merchants, one new address, at once: one configures it, the other gets the conflict.
	contested := "0x" + strings.Repeat("e", 40)
	errs := make(chan error, 2)
	for _, m := range []string{"0x" + strings.Repeat("3", 40), "0x" + strings.Repeat("4", 40)} {
		go func() {
			_, err := h.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: m, Address: contested})
			errs <- err
		}()
	}
	var ok, conflicts int
	for range 2 {
		var r *commands.Refusal
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.As(err, &r) && r.Code == "conflict":
			conflicts++
		default:
			t.Fatal(err)
		}
	}
	if ok != 1 || conflicts != 1 {
		t.Fatalf("%d configured and %d conflicts, want 1 and 1", ok, conflicts)
	}
}

// A refused configuration claims nothing: before, the address's claim was appended before the
// split's rules were checked, so a request answered 400 (here: shares that do not add up) still
// made its merchant the contract's owner, and the merchant the contract pays was refused with
// 409 conflict ever after; every such request also made one more address stream.
func TestConfigureSplitRefusedClaimsNothing(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewConfigureSplitHandler(e.store, payPlatform, e.now)
	squatter := "0x" + strings.Repeat("5", 40)
	bad := []commands.SplitRecipient{{Address: squatter, SharesBps: 1}}
	_, err := h.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: squatter, Address: payContract, Recipients: &bad})
	wantRefusal(t, err, "invalid_input", "invalid split: sharesBps add up to 1")
	if err := h.CheckOwner(e.ctx, payMerchant, payContract); err != nil {
		t.Fatalf("after a refused request by another merchant, the contract is claimed: %v", err)
	}
	res, err := h.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: payMerchant, Address: payContract})
	if err != nil || !res.State.Configured || res.State.Address != payContract {
		t.Fatalf("the merchant configuring its contract: %+v %v", res, err)
	}
}
