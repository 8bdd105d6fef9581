package main

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/internal/syncbuf"
)

// TestSubscriptionsNeedSixDecimalUSDC: plan prices become USDC base units at 6 decimals (spec),
// so a USDC configured with another count (CHAIN_TOKENS accepts USDC=0x..:18, as on chains whose
// USDC has 18) leaves subscriptions off, with a warning, rather than charging 10^-12 of each
// price.
func TestSubscriptionsNeedSixDecimalUSDC(t *testing.T) {
	cfg := config{ChainID: 8453, OperatorKey: strings.Repeat("ab", 32), SpendPermissionManager: "0x1111111111111111111111111111111111111111"}
	usdc := func(decimals uint8) []chain.Token {
		return []chain.Token{{Symbol: "USDC", Address: common.HexToAddress("0x3333333333333333333333333333333333333333"), Decimals: decimals}}
	}
	cfg.ChainTokens = usdc(6)
	if s := subscriptionChain(cfg, zerolog.Nop()); s.Operator == "" || s.USDC == "" {
		t.Fatalf("6-decimal USDC: %+v, want subscriptions configured", s)
	}
	cfg.ChainTokens = usdc(18)
	logs := &syncbuf.Buffer{}
	if s := subscriptionChain(cfg, zerolog.New(logs)); s.Operator != "" || s.Signer != nil {
		t.Fatalf("18-decimal USDC: %+v, want subscriptions off", s)
	}
	if !strings.Contains(logs.String(), "6 decimals") {
		t.Fatalf("no warning naming the decimals: %s", logs.String())
	}
}
