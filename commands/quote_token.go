package commands

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// Prices reads the current USD prices by asset: tokens by symbol, the EUR/USD rate as "EUR".
// An asset without a price is absent.
type Prices interface {
	USDPrices(ctx context.Context) (map[string]string, error)
}

// QuoteToken prices a receipt in a token with the current rates.
type QuoteToken struct {
	ReceiptID string
	Token     string // one of receipt.PaymentTokens
	Meta      eventstore.Metadata
}

// TokenQuoted is a recorded quote.
type TokenQuoted struct {
	ReceiptID string
	Quote     receipt.TokenQuoted
	Result    eventstore.AppendResult
}

// QuoteTokenHandler quotes receipts in tokens.
type QuoteTokenHandler struct {
	store  Store
	prices Prices
	clock  judgeClock // the database's with JudgedBy (reconcile_onramp_clock.go)
}

// NewQuoteTokenHandler returns the handler. It panics on a nil dependency.
func NewQuoteTokenHandler(store Store, prices Prices, now func() time.Time) *QuoteTokenHandler {
	if store == nil || prices == nil || now == nil {
		panic("commands.NewQuoteTokenHandler: nil dependency")
	}
	return &QuoteTokenHandler{store: store, prices: prices, clock: judgeClock{now: now}}
}

// Handle prices the receipt (through EUR/USD for EUR receipts, at the rate of its first quote)
// and records the quote with the rates it used in the receipt's events; a receipt with a payment
// window returns the quote it holds in the token until the window ends, and refuses a quote after
// (receipt.QuoteInWindow); a quote that values confirmed deposits covering the receipt pays it. Errors: Invalid (unknown token), ErrPriceUnavailable (no
// price for the token, no EUR/USD rate for an EUR receipt), receipt.ErrNotFound,
// receipt.ErrState, receipt.ErrQuotesLimited and receipt.ErrQuotesExhausted (a new quote past
// the receipt's bounds; a held one is always returned), ErrContended, the database clock's
// (JudgedBy), wrapped store errors. The window's end is judged by the database's clock with
// JudgedBy, read once.
func (h *QuoteTokenHandler) Handle(ctx context.Context, cmd QuoteToken) (TokenQuoted, error) {
	if !slices.Contains(receipt.PaymentTokens(), cmd.Token) {
		return TokenQuoted{}, Invalid("token must be one of " + strings.Join(receipt.PaymentTokens(), ", "))
	}
	now, err := h.clock.read(ctx)
	if err != nil {
		return TokenQuoted{}, err
	}
	// The prices are read only once the receipt is known to exist: an unknown receipt is
	// receipt.ErrNotFound whatever the price source's state (it was price_unavailable, 503, when a
	// price was missing). They are read once, whatever the retries of a contended append.
	var prices map[string]string
	read := false
	var q receipt.TokenQuoted
	st, res, err := ChangeReceipt(ctx, h.store, cmd.ReceiptID, cmd.Meta, func(st receipt.State) ([]receipt.Event, error) {
		// The receipt's own answer comes before any price: a paid receipt is ErrState and a held
		// quote is returned even while the token has no price (a price outage answered 503).
		if held, done, err := quoteWithoutPrice(st, cmd.Token, now().UnixMilli()); done {
			q = held
			return nil, err
		}
		if !read {
			p, err := h.prices.USDPrices(ctx)
			if err != nil {
				return nil, err
			}
			prices, read = p, true
		}
		tokenUSD, err := tokenPrice(prices, cmd.Token)
		if err != nil {
			return nil, err
		}
		// The rate of the receipt's first quote holds (receipt.QuoteRate): the current one is
		// needed only when there is none.
		eurUSD := receipt.QuoteRate(st, prices["EUR"])
		if st.Receipt.Currency == "EUR" && eurUSD == "" {
			return nil, priceUnavailable("No EUR/USD rate is set")
		}
		// A receipt with a payment window keeps the quote it was given until the window ends; a
		// quote that prices confirmed deposits covering the receipt records its payment too.
		evs, held, err := receipt.QuoteInWindow(st, cmd.Token, tokenUSD, eurUSD, now().UnixMilli())
		q = held
		return evs, err
	})
	if err != nil {
		return TokenQuoted{}, err
	}
	return TokenQuoted{ReceiptID: st.Receipt.ReceiptID, Quote: q, Result: res}, nil
}

// tokenPrice is token's USD price: 1 for a stablecoin, else the price set for it
// (ErrPriceUnavailable without one).
func tokenPrice(prices map[string]string, token string) (string, error) {
	if receipt.IsStable(token) {
		return "1", nil
	}
	p, ok := prices[token]
	if !ok {
		return "", priceUnavailable("No USD price is set for " + token)
	}
	return p, nil
}

// priceUnavailable is ErrPriceUnavailable saying which price is missing.
func priceUnavailable(message string) *Refusal {
	return &Refusal{Kind: ErrPriceUnavailable.Kind, Code: ErrPriceUnavailable.Code, Message: message}
}

// quoteWithoutPrice is the receipt's answer to a quote in token at `at` (Unix ms) when it needs no
// price: done with the refusal of a receipt that takes no new quote (receipt.ErrState: settled,
// ACH pending or its window ended; receipt.ErrQuotesExhausted or ErrQuotesLimited), or done with
// the quote it holds in token until its window ends. The decision runs on a placeholder price;
// only these price-independent outcomes are kept.
func quoteWithoutPrice(st receipt.State, token string, at int64) (receipt.TokenQuoted, bool, error) {
	evs, held, err := receipt.QuoteInWindow(st, token, "1", "1", at)
	switch {
	case errors.Is(err, receipt.ErrState) || errors.Is(err, receipt.ErrQuotesExhausted) || errors.Is(err, receipt.ErrQuotesLimited):
		return receipt.TokenQuoted{}, true, err
	case err == nil && len(evs) == 0 && held.Token != "":
		return held, true, nil
	}
	return receipt.TokenQuoted{}, false, nil
}
