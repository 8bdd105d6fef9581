package commands_test

import (
	"testing"

	"github.com/payledger/payledger/commands"
)

func TestConfigureSplit(t *testing.T) {
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
