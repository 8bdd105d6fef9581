package commands

import "context"

// Handler is the shape of every request use case: one command in, its result or an error out.
// The composition root (cmd/payledger/app) builds each handler, wraps it in decorators (the
// logging of outcomes) through this interface, and hands transport the wrapped handlers.
type Handler[C, R any] interface {
	Handle(ctx context.Context, cmd C) (R, error)
}

// HandlerFunc is a function as a Handler: the entry points of a handler with several (the
// terminal's Display and Complete).
type HandlerFunc[C, R any] func(ctx context.Context, cmd C) (R, error)

// Handle calls f.
func (f HandlerFunc[C, R]) Handle(ctx context.Context, cmd C) (R, error) { return f(ctx, cmd) }

// Handlers are the request use cases the HTTP routes call, as the composition root built them.
type Handlers struct {
	CreateOrder         Handler[CreateOrder, Issued]
	CreateReceipt       Handler[CreateReceipt, Issued]
	StartOnramp         Handler[StartOnramp, OnrampStarted]
	SubmitWalletPayment Handler[SubmitWalletPayment, WalletPaymentSubmitted]
	RecordTelemetry     Handler[RecordTelemetry, TelemetryRecorded]
	ApplyProcessorEvent Handler[ApplyProcessorEvent, ProcessorEventApplied]
	ReconcileOnramp     Handler[ReconcileOnramp, Reconciled]
	Refund              Handler[Refund, Refunded]
	DisplayTerminal     Handler[TerminalDisplay, TerminalReceipt]
	CompleteTerminal    Handler[TerminalComplete, TerminalReceipt]
	QuoteToken          Handler[QuoteToken, TokenQuoted]
	ConfigureSplit      Handler[ConfigureMerchantSplit, SplitResult]
	CreateSubscription  Handler[CreateSubscription, SubscriptionResult]
	CancelSubscription  Handler[CancelSubscription, SubscriptionResult]
}
