package main

import (
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/domain/subscription"
)

// subscriptionChain is what subscription creation checks permissions against: the operator
// (CHAIN_OPERATOR_KEY's address) as spender, USDC from CHAIN_TOKENS as token, and the EIP-712
// domain of SPEND_PERMISSION_MANAGER on CHAIN_ID. Without all three, or with a USDC of other
// than 6 decimals, subscriptions are not configured (creation answers 503).
func subscriptionChain(cfg config, log zerolog.Logger) app.Subscriptions {
	usdc, ok := chain.FindToken(cfg.ChainTokens, "USDC")
	if cfg.OperatorKey == "" || cfg.SpendPermissionManager == "" || !ok {
		log.Warn().Msg("subscriptions are not configured: CHAIN_OPERATOR_KEY, SPEND_PERMISSION_MANAGER and USDC in CHAIN_TOKENS are needed")
		return app.Subscriptions{}
	}
	if usdc.Decimals != subscription.USDCDecimals {
		// Plan prices become USDC base units at 6 decimals (spec): with another count every charge
		// would move a wrong amount (at 18, 10^-12 of the price).
		log.Warn().Uint8("decimals", usdc.Decimals).Msg("subscriptions are not configured: USDC in CHAIN_TOKENS must have 6 decimals")
		return app.Subscriptions{}
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(cfg.OperatorKey, "0x"))
	if err != nil { // config refused it already: not reached
		log.Warn().Msg("subscriptions are not configured: CHAIN_OPERATOR_KEY is not a key")
		return app.Subscriptions{}
	}
	return app.Subscriptions{
		Signer:   chain.SpendPermissions{ChainID: cfg.ChainID, Manager: cfg.SpendPermissionManager},
		Operator: strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()),
		USDC:     strings.ToLower(usdc.Address.Hex()),
	}
}

// chargeOperator is the sender of subscription charges when subscriptions are configured
// (sc.Operator set; ETH_RPC_URL is then set too); else nil (the charging routes answer 503, no
// charging run). cmd/payledger/app builds the charging process over it. A node that did not
// answer at start (rpc nil) gets a late operator: the charging worker's background dial
// connects it (app.subscriptionCharging), the routes answer 503 chain_unavailable until then,
// and charging comes on without a restart (before, it stayed off until one). Its transactions
// count at CHAIN_CONFIRMATIONS depth, as sweeps and releases do.
func chargeOperator(cfg config, sc app.Subscriptions, rpc *chain.RPC, log zerolog.Logger) *chain.ChargeOperator {
	if sc.Operator == "" || (rpc == nil && cfg.EthRPCURL == "") {
		return nil
	}
	var op *chain.ChargeOperator
	var err error
	if rpc != nil {
		op, err = chain.NewChargeOperator(cfg.OperatorKey, uint64(cfg.ChainID), rpc, cfg.ChainTokens, cfg.SpendPermissionManager)
	} else {
		op, err = chain.NewLateChargeOperator(cfg.OperatorKey, uint64(cfg.ChainID), cfg.ChainTokens, cfg.SpendPermissionManager)
	}
	if err != nil {
		log.Warn().Err(err).Msg("subscription charging is not configured")
		return nil
	}
	op.WithConfirmations(cfg.ChainConfirmations)
	return op
}
