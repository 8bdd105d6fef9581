package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/pricing"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/reserve"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// PriceStore keeps token prices and the EUR/USD rate.
type PriceStore interface {
	All(ctx context.Context) (map[string]readmodels.Price, error)
	Set(ctx context.Context, prices []readmodels.Price) error
}

// UsageCounter counts API calls per merchant.
type UsageCounter interface {
	Count(wallet string)
	Calls(ctx context.Context, wallet string, from time.Time) (period, all int64, err error)
}

// Figures is what billing and reserves read from the receipts read model.
type Figures interface {
	Summaries(ctx context.Context, wallet string, from, to time.Time) ([]readmodels.MoneySummary, error)
	OrdersCreated(ctx context.Context, wallet string, from time.Time) (period, all int64, err error)
	SettledByToken(ctx context.Context, wallet string) ([]readmodels.Settled, error)
	SplitTransactions(ctx context.Context, wallet string, limit int) ([]readmodels.SplitTransaction, error)
}

func (s *Server) getPricing(c echo.Context) error {
	prices, err := s.prices.All(c.Request().Context())
	if err != nil {
		return err
	}
	tokens := map[string]any{}
	for _, t := range receipt.StableTokens {
		tokens[t] = map[string]any{"usd": 1, "fixed": true}
	}
	for _, a := range receipt.PricedTokens() {
		tokens[a] = priceView(prices[a])
	}
	return c.JSON(http.StatusOK, map[string]any{"tokens": tokens, "eurUsd": priceView(prices["EUR"])})
}

func priceView(p readmodels.Price) any {
	if p.USDPrice == "" {
		return map[string]any{"usd": nil, "setAt": nil}
	}
	return map[string]any{"usd": json.Number(p.USDPrice), "setAt": p.SetAt.UnixMilli(), "setBy": p.SetBy}
}

type pricingRequest struct {
	Tokens map[string]json.Number `json:"tokens"`
	EURUSD *json.Number           `json:"eurUsd"`
}

func (s *Server) postPricing(c echo.Context) error {
	var req pricingRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	tokens := make(map[string]string, len(req.Tokens))
	for token, n := range req.Tokens {
		tokens[token] = n.String()
	}
	var eurUSD *string
	if req.EURUSD != nil {
		v := req.EURUSD.String()
		eurUSD = &v
	}
	rates, err := pricing.Check(tokens, eurUSD)
	if err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	now := s.now()
	out := make([]readmodels.Price, 0, len(rates))
	for _, r := range rates {
		out = append(out, readmodels.Price{Asset: r.Asset, USDPrice: r.USDPrice, SetAt: now, SetBy: sess.Wallet})
	}
	if err := s.prices.Set(c.Request().Context(), out); err != nil {
		return err
	}
	return s.getPricing(c)
}

type quoteRequest struct {
	Token string `json:"token"`
}

// quote prices a receipt in a token with the current rates and records the quote (and the rates
// it used) in the receipt's events.
func (s *Server) quote(c echo.Context) error {
	var req quoteRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	out, err := s.cmd.QuoteToken.Handle(ctx, commands.QuoteToken{ReceiptID: c.Param("id"), Token: req.Token, Meta: s.metadata(c, "customer")})
	if err != nil {
		return err
	}
	if out.Result.Position != (eventstore.Position{}) {
		// The page reads the payment request next: it must see this quote (DESIGN 4, issue 36).
		s.waitChanges(ctx, commands.ReceiptChange{ReceiptID: out.ReceiptID, Result: out.Result})
	}
	q := out.Quote
	return c.JSON(http.StatusOK, map[string]any{"receiptId": out.ReceiptID, "token": q.Token, "amount": q.Amount,
		"tokenUsdPrice": json.Number(q.TokenUSDPrice), "eurUsdRate": nullable(q.EURUSDRate), "amountUsd": json.Number(q.AmountUSD), "quotedAt": q.At})
}

func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func (s *Server) billing(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	ctx := c.Request().Context()
	now := s.now()
	from := monthStart(now)
	view := func(list []readmodels.MoneySummary) []map[string]any {
		out := []map[string]any{}
		for _, m := range list {
			out = append(out, map[string]any{"currency": m.Currency, "paidReceipts": m.PaidCount, "paidVolume": money.Cents(m.PaidCents).Float(),
				"platformFees": money.Cents(m.PlatformCents).Float(), "merchantAddOnFees": money.Cents(m.MerchantCents).Float(),
				"refunds": money.Cents(m.RefundedCents).Float()})
		}
		return out
	}
	period, err := s.figures.Summaries(ctx, p.Wallet, from, now.Add(time.Millisecond))
	if err != nil {
		return err
	}
	all, err := s.figures.Summaries(ctx, p.Wallet, time.Unix(0, 0), now.Add(time.Millisecond))
	if err != nil {
		return err
	}
	ordersPeriod, ordersAll, err := s.figures.OrdersCreated(ctx, p.Wallet, from)
	if err != nil {
		return err
	}
	callsPeriod, callsAll, err := s.usage.Calls(ctx, p.Wallet, from)
	if err != nil {
		return err
	}
	subsPeriod, subsAll, err := s.subscriptionBilling(ctx, p.Wallet, from, now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{
		"wallet": p.Wallet, "periodStart": from.UnixMilli(), "asOf": now.UnixMilli(),
		"period":  map[string]any{"byCurrency": view(period), "ordersCreated": ordersPeriod, "apiCalls": callsPeriod, "subscriptions": subsPeriod},
		"allTime": map[string]any{"byCurrency": view(all), "ordersCreated": ordersAll, "apiCalls": callsAll, "subscriptions": subsAll},
		"note":    "computed from the receipts projection and the subscriptions projection's billing records (USD); API calls are flushed every few seconds",
	})
}

func (s *Server) reserveBalances(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	list, err := s.figures.SettledByToken(c.Request().Context(), p.Wallet)
	if err != nil {
		return err
	}
	out := []map[string]any{}
	for _, x := range list {
		out = append(out, map[string]any{"token": x.Token, "currency": x.Currency, "receipts": x.Receipts,
			"settled": money.Cents(x.SettledCents).Float(), "refunded": money.Cents(x.RefundedCents).Float()})
	}
	return c.JSON(http.StatusOK, map[string]any{"balances": out})
}

func (s *Server) reserveRecommend(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	ctx := c.Request().Context()
	now := s.now()
	from := now.Add(-reserve.WindowDays * 24 * time.Hour)
	list, err := s.figures.Summaries(ctx, p.Wallet, from, now.Add(time.Millisecond))
	if err != nil {
		return err
	}
	site, err := s.sites.Get(ctx)
	if err != nil {
		return err
	}
	out := []map[string]any{}
	for _, m := range list {
		ratio, ok := site.ReserveRatios[m.Currency]
		if !ok {
			ratio = reserve.DefaultRatio
		}
		volume := m.PaidCents
		rec, refundRate := reserve.Recommended(volume, m.RefundedCents, ratio)
		out = append(out, map[string]any{"currency": m.Currency, "recommended": rec.Float(),
			"inputs": map[string]any{"windowDays": reserve.WindowDays, "volume": money.Cents(volume).Float(), "refunds": money.Cents(m.RefundedCents).Float(),
				"refundRate": refundRate, "reserveRatio": ratio, "ratioSource": map[bool]string{true: "site reserveRatios", false: "default"}[ok],
				"formula": "volume × (reserveRatio + refundRate)"}})
	}
	return c.JSON(http.StatusOK, map[string]any{"recommendations": out, "asOf": now.UnixMilli()})
}

func (s *Server) splitTransactions(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	ctx := c.Request().Context()
	limit, err := intParam(c, "limit", 50, 1, 500)
	if err != nil {
		return err
	}
	out := []map[string]any{}
	if addr := strings.ToLower(c.QueryParam("address")); addr != "" {
		if !ValidWallet(addr) { // a mistyped filter must not read as "no transactions"
			return InvalidInput("address must be a 0x-prefixed 40-hex-character address")
		}
		sp, err := s.splits.Get(ctx, p.Wallet)
		if err != nil {
			return err
		}
		// The split's address, one it had before a redeployment (receipts were distributed
		// there), or a recipient's.
		match := sp.Address == addr || slices.Contains(sp.Moved, addr)
		for _, r := range sp.Recipients {
			match = match || r.Address == addr
		}
		if !match {
			return c.JSON(http.StatusOK, out)
		}
	}
	list, err := s.figures.SplitTransactions(ctx, p.Wallet, limit)
	if err != nil {
		return err
	}
	for _, t := range list {
		out = append(out, map[string]any{"id": "split_" + t.ReceiptID, "receiptId": t.ReceiptID, "amount": money.Cents(t.TotalCents).Float(),
			"currency": t.Currency, "status": "distributed", "timestamp": time.UnixMilli(t.At).UTC().Format(time.RFC3339),
			"transactionHash": t.TransactionHash, "fees": money.Cents(t.FeeCents).Float()})
	}
	return c.JSON(http.StatusOK, out)
}

// subscriptionBilling is the merchant's subscription charges (one billing record per
// SubscriptionCharged, written by the subscriptions projection, in USD) this month and all time:
// how many, their volume and the 0.5% platform fee of each.
func (s *Server) subscriptionBilling(ctx context.Context, wallet string, from, now time.Time) (period, all map[string]any, err error) {
	view := func(t readmodels.ChargeTotals) map[string]any {
		return map[string]any{"currency": "USD", "charges": t.Charges, "volume": money.Cents(t.VolumeCents).Float(),
			"platformFees": money.Cents(t.PlatformCents).Float()}
	}
	p, err := s.subscriptionLists.ChargeTotals(ctx, wallet, from, now.Add(time.Millisecond))
	if err != nil {
		return nil, nil, err
	}
	a, err := s.subscriptionLists.ChargeTotals(ctx, wallet, time.Unix(0, 0), now.Add(time.Millisecond))
	if err != nil {
		return nil, nil, err
	}
	return view(p), view(a), nil
}
