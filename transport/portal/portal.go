package portal

import (
	"context"
	"errors"
	"html/template"
	"math/big"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/failure"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/page"
)

// paymentPage serves the customer payment page of a receipt (both the order-flow /portal/ and
// the quick-start /pay/ paths serve the same page); an unknown receipt gets a 404 page.
func (s *handlers) paymentPage(c echo.Context) error {
	row, err := s.anyReceipt(c, c.Param("id"))
	if errors.Is(err, commands.ErrReceiptNotFound) {
		return s.assets.ServeNotFound(c.Response(), c.Param("id"))
	}
	if err != nil {
		return err
	}
	return s.assets.ServePage(c.Response(), s.pageView(c.Request().Context(), row))
}

var pageThumbRE = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp|svg\+xml)[;,]`)

// pageView is what the payment page shows of row: the shop's branding (the receipt's brand
// name when the shop has none), the lines, the status, and the currencies it can be paid in.
func (s *handlers) pageView(ctx context.Context, row readmodels.ReceiptRow) page.View {
	st := row.State
	g := st.Receipt
	now := s.r.Now().UnixMilli()
	v := page.View{ReceiptID: g.ReceiptID, BrandName: g.BrandName, Total: g.Total.String(), Currency: g.Currency,
		Status: string(st.Status), Settled: st.Status.Settled(), InProgress: st.PaymentInProgress(), Payment: paymentView(st), Failure: failureView(st),
		WalletOK: s.cfg.PaymentChain.Configured(), CardOK: s.cfg.OnrampConfigured, ExpiresAt: g.ExpiresAt, ChainGone: st.DepositChainGone != nil,
		WindowEnded: windowEnded(st, now), WindowNote: windowNote(st, now)}
	if shop, err := s.Shops.Get(ctx, g.Merchant); err == nil {
		if strings.TrimSpace(shop.Name) != "" {
			v.BrandName = shop.Name
		}
		t := shop.Theme
		v.Theme = page.Theme{Primary: transport.Color(t.PrimaryColor), Secondary: transport.Color(t.SecondaryColor), Text: transport.Color(t.TextColor), Accent: transport.Color(t.AccentColor)}
		if strings.HasPrefix(t.BrandLogoURL, "https://") {
			v.Theme.LogoURL = t.BrandLogoURL
		}
	}
	if v.BrandName == "" {
		v.BrandName = "Payment"
	}
	for _, l := range g.LineItems {
		line := page.Line{Label: l.Label, Amount: l.Amount.String(), Kind: l.Kind}
		if l.Kind == receipt.KindItem {
			line.Qty, line.Unit = l.Qty, l.Unit.String()
			if pageThumbRE.MatchString(l.Thumb) {
				line.Thumb = template.URL(l.Thumb) // an image URI: shown by <img>, never run
			}
		}
		v.Lines = append(v.Lines, line)
	}
	received, required := st.AmountReceived(), st.AmountRequired()
	if received != "" {
		v.Underpaid = !v.Settled && !v.WindowEnded && underpaid(received, required)
		v.AmountReceived, v.AmountRequired, v.AmountToken = page.TokenAmount(received), page.TokenAmount(required), st.RequestedToken()
		v.AmountDue = page.Due(received, required)
	}
	if !v.Settled && !v.WindowEnded {
		v.Tokens = s.pageTokens(ctx)
		v.Token = defaultToken(v.Tokens)
	}
	// What the page says when its countdown reaches the window's end before the stream reports
	// the recorded expiry: the note at that instant.
	v.Data = s.pageData(v, now, windowNote(st, max(now, g.ExpiresAt)))
	return v
}

// pageTokens are the currencies offered: the tokens priced in pricing config (USDC and USDT are
// always 1 USD) and, when a chain is configured, payable on it.
func (s *handlers) pageTokens(ctx context.Context) []string {
	prices, err := s.Prices.All(ctx)
	if err != nil {
		prices = nil // the stablecoins need no price
	}
	var out []string
	for _, t := range receipt.PaymentTokens() {
		_, priced := prices[t]
		if !receipt.IsStable(t) && !priced {
			continue
		}
		if s.cfg.PaymentChain.Configured() {
			if _, ok := s.cfg.PaymentChain.Token(t); !ok {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

func defaultToken(tokens []string) string {
	if slices.Contains(tokens, "USDC") || len(tokens) == 0 {
		return "USDC"
	}
	return tokens[0]
}

// catalogText is a failure catalog entry as the page shows it.
func catalogText(code string) page.Failure {
	c, _ := failure.Lookup(code)
	return page.Failure{Code: c.Code, Description: c.Description, Action: c.Action}
}

// pageData is the JSON the page's script reads at now (Unix ms: the page counts down by the
// service's clock); endNote is what the page says once the payment window has ended (windowNote
// at its end).
func (s *handlers) pageData(v page.View, now int64, endNote string) map[string]any {
	labels := map[string]string{}
	var settled []string
	for _, st := range receipt.Statuses() {
		labels[string(st)] = page.StatusLabel(string(st))
		if st.Settled() {
			settled = append(settled, string(st))
		}
	}
	pc := s.cfg.PaymentChain
	if pc.Name == "" {
		pc.Name = transport.ChainName(pc.ChainID)
	}
	return map[string]any{
		"receiptId": v.ReceiptID, "status": v.Status, "tokens": v.Tokens, "token": v.Token, "labels": labels, "settled": settled, "expiresAt": v.ExpiresAt,
		"windowEnded": v.WindowEnded, "windowNote": endNote, "now": now,
		"underpaidLabel": page.UnderpaidLabel, "cardLabel": page.CardLabel, "cardRestLabel": page.CardRestLabel,
		"chain": map[string]any{"configured": pc.Configured(), "chainId": pc.ChainID, "name": pc.Name, "rpcUrl": pc.RPCURL},
		"texts": map[string]any{
			"userRejected":        catalogText("PORTAL_CHAIN_USER_REJECTED"),
			"insufficientBalance": catalogText("PORTAL_CHAIN_INSUFFICIENT_BALANCE"),
		},
	}
}

// portalReceipt is the receipt as the payment page shows it to the customer.
func (s *handlers) portalReceipt(c echo.Context) error {
	row, err := s.anyReceipt(c, c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"receipt": transport.PublicReceiptOf(row.State)})
}

// underpaid reports whether some but not all of the required amount arrived (decimal strings).
func underpaid(received, required string) bool {
	got, ok1 := new(big.Rat).SetString(received)
	want, ok2 := new(big.Rat).SetString(required)
	return ok1 && ok2 && got.Sign() > 0 && got.Cmp(want) < 0
}
