package main

import (
	"context"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/webhooks"
)

// subscriptionChain is what subscription creation checks permissions against: the operator
// (CHAIN_OPERATOR_KEY's address) as spender, USDC from CHAIN_TOKENS as token, and the EIP-712
// domain of SPEND_PERMISSION_MANAGER on CHAIN_ID. Without all three, subscriptions are not
// configured (creation answers 503).
func subscriptionChain(cfg config, log zerolog.Logger) transport.SubscriptionChain {
	usdc, ok := chain.FindToken(cfg.ChainTokens, "USDC")
	if cfg.OperatorKey == "" || cfg.SpendPermissionManager == "" || !ok {
		log.Warn().Msg("subscriptions are not configured: CHAIN_OPERATOR_KEY, SPEND_PERMISSION_MANAGER and USDC in CHAIN_TOKENS are needed")
		return transport.SubscriptionChain{}
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(cfg.OperatorKey, "0x"))
	if err != nil { // config validated it already
		log.Warn().Msg("subscriptions are not configured: CHAIN_OPERATOR_KEY is not a key")
		return transport.SubscriptionChain{}
	}
	return transport.SubscriptionChain{
		Signer:   chain.SpendPermissions{ChainID: cfg.ChainID, Manager: cfg.SpendPermissionManager},
		Operator: strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()),
		USDC:     strings.ToLower(usdc.Address.Hex()),
	}
}

// subscriptionCharger charges subscriptions when the chain is connected and subscriptions are
// configured (sc.Operator set); else nil (the charging routes answer 503, no ticker).
func subscriptionCharger(cfg config, sc transport.SubscriptionChain, rpc *chain.RPC, pool *pgxpool.Pool, store eventstore.Store, log zerolog.Logger) *settlement.ChargeSubscriptionsHandler {
	if rpc == nil || sc.Operator == "" {
		return nil
	}
	op, err := chain.NewChargeOperator(cfg.OperatorKey, uint64(cfg.ChainID), rpc, cfg.ChainTokens, cfg.SpendPermissionManager)
	if err != nil {
		log.Warn().Err(err).Msg("subscription charging is not configured")
		return nil
	}
	h := settlement.NewChargeSubscriptionsHandler(store, op, readmodels.NewSubscriptionCharges(pool), readmodels.NewSubscriptions(pool),
		commands.NewSplits(store), time.Now)
	h.Log = log
	h.Notify = readmodels.NewSubscriptionWebhooks(pool)
	return h
}

// subscriptionTicker is serve's daily charging run, on the instance that leads the subscriptions
// projector only (other instances stand by; the claims keep even two runs apart); between daily
// runs it recovers charges left open by a crash every 5 minutes. On every instance, the charge
// webhooks queued are sent every 2 seconds.
func subscriptionTicker(h *settlement.ChargeSubscriptionsHandler, leader interface{ Leader() bool }, pool *pgxpool.Pool,
	keys *readmodels.WebhookKeys, via *webhooks.Dispatcher, log zerolog.Logger) worker {
	return workerFunc(func(ctx context.Context) error {
		if h == nil {
			return nil
		}
		sender := &webhooks.SubscriptionSender{Outbox: readmodels.NewSubscriptionWebhooks(pool), Keys: keys, Via: via, Log: log}
		// The sender ends with the ticker and is waited for, so that serve's shutdown never
		// closes the pool under a delivery.
		sctx, stop := context.WithCancel(ctx)
		sent := make(chan struct{})
		go func() { defer close(sent); _ = sender.Run(sctx, 2*time.Second) }()
		defer func() { stop(); <-sent }()
		return h.Run(ctx, leader.Leader, 24*time.Hour, 5*time.Minute)
	})
}
