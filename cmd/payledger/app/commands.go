package app

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
	"github.com/payledger/payledger/transport/onramp"
)

// buildCommands builds the request use cases over the read models they consume, and returns the
// onramp reconciliation undecorated, for the background reconciler.
func (a *Application) buildCommands(d Config, in infra) *commands.ReconcileOnrampHandler {
	events, now := d.Store, d.Now
	receipts := readmodels.NewReceipts(d.Pool) // open onramp attempts, the hints' receipts
	prices := usdPrices{readmodels.NewPrices(d.Pool)}
	splits := commands.NewSplits(events)
	pricing := readmodels.NewOrderPricing(readmodels.NewShops(d.Pool), a.Caches.Pricing)
	catalog := readmodels.NewOrderCatalog(readmodels.NewInventory(d.Pool), a.Caches.Inventory)
	issuer := commands.NewIssuer(events, readmodels.NewIdempotency(d.Pool), in.webhookKeys, in.journal, readmodels.Unavailable, now).WithDeposits(splits, d.Deposits, d.PaymentWindow)
	a.Queries = Queries{Splits: splits, Journaled: issuer}

	var processor commands.Processor // nil: the onramp is not configured
	if d.Processor != nil {
		processor = onrampProcessor{d.Processor}
	}
	dbClock := pgstore.NewReceipts(d.Pool) // "before the window's end" is the database's clock's word, as the window's (stops 72, 73: starts and quotes)
	reconcile := commands.NewReconcileOnrampHandler(events, processor, receipts, now).JudgedBy(dbClock, nil)
	terminal := commands.NewTerminalHandler(events, pricing, now)
	a.Commands = commands.Handlers{
		CreateOrder:         commands.NewCreateOrderHandler(splits, catalog, pricing, issuer, d.PlatformRecipient, now),
		CreateReceipt:       commands.NewCreateReceiptHandler(pricing, issuer),
		StartOnramp:         logOutcomes(commands.NewStartOnrampHandler(events, splits, processor, prices, now).JudgedBy(dbClock, nil), noteStartOnramp),
		SubmitWalletPayment: commands.NewSubmitWalletPaymentHandler(events, pgstore.NewPaymentHints(d.Pool), receipts, d.Chain.Transactions, now),
		RecordTelemetry:     logOutcomes(commands.NewRecordTelemetryHandler(events, reconcile, now), noteTelemetry),
		ApplyProcessorEvent: logOutcomes(commands.NewApplyProcessorEventHandler(events, readmodels.NewProcessorEvents(d.Pool), now).JudgedBy(dbClock, nil), noteProcessorEvent),
		ReconcileOnramp:     logOutcomes(reconcile, noteReconcile),
		Refund:              commands.NewRefundHandler(events, pgstore.NewRefundClaims(d.Pool), now),
		DisplayTerminal:     commands.HandlerFunc[commands.TerminalDisplay, commands.TerminalReceipt](terminal.Display),
		CompleteTerminal:    commands.HandlerFunc[commands.TerminalComplete, commands.TerminalReceipt](terminal.Complete),
		QuoteToken:          commands.NewQuoteTokenHandler(events, prices, now).JudgedBy(dbClock, nil),
		ConfigureSplit: settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(events, d.PlatformRecipient, now),
			d.Chain.SplitChain(), d.Chain.SplitOperator),
		CreateSubscription: createSubscription(d, planLookup{readmodels.NewPlans(d.Pool)}), // bounded: subscriptions_create.go
		CancelSubscription: commands.NewCancelSubscriptionHandler(events, now),
	}
	return reconcile
}

// OnrampClient is the onramp processor's session API as the HTTP client speaks it (transport/onramp).
type OnrampClient interface {
	Create(ctx context.Context, req onramp.CreateRequest) (onramp.Session, error)
	Get(ctx context.Context, id string) (onramp.Session, error)
}

var _ OnrampClient = (*onramp.Client)(nil)

// onrampProcessor gives the commands the processor client in their own terms: the commands' and
// the client's request and session types have the same fields (the client's carry the JSON
// names), so each converts to the other.
type onrampProcessor struct{ client OnrampClient }

var _ commands.Processor = onrampProcessor{}

func (p onrampProcessor) Create(ctx context.Context, req commands.OnrampRequest) (commands.OnrampSession, error) {
	sess, err := p.client.Create(ctx, onramp.CreateRequest(req))
	return commands.OnrampSession(sess), err
}

func (p onrampProcessor) Get(ctx context.Context, id string) (commands.OnrampSession, error) {
	sess, err := p.client.Get(ctx, id)
	return commands.OnrampSession(sess), err
}

// usdPrices gives the quote and onramp commands the price store's current USD prices.
type usdPrices struct{ store *readmodels.Prices }

// PriceSource is the price store on pool as the commands and the deposit detector read it (the
// current USD prices by asset).
func PriceSource(pool *pgxpool.Pool) commands.Prices { return usdPrices{readmodels.NewPrices(pool)} }

var _ commands.Prices = usdPrices{}

func (p usdPrices) USDPrices(ctx context.Context) (map[string]string, error) {
	all, err := p.store.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(all))
	for asset, price := range all {
		out[asset] = price.USDPrice
	}
	return out, nil
}

// planLookup gives the create command the plans of the plan store.
type planLookup struct{ plans *readmodels.Plans }

func (l planLookup) SubscriptionPlan(ctx context.Context, id string) (commands.SubscriptionPlan, bool, error) {
	p, err := l.plans.Get(ctx, id)
	if errors.Is(err, readmodels.ErrNotFound) {
		return commands.SubscriptionPlan{}, false, nil
	}
	if err != nil {
		return commands.SubscriptionPlan{}, false, err
	}
	return commands.SubscriptionPlan{ID: p.ID, Merchant: p.Wallet, Name: p.Name, Price: p.Price, Period: p.Period, Active: p.Active}, true, nil
}
