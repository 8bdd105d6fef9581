package transport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
)

// MaxOrderItems is the most lines an order may have (DESIGN 9): 30,000 lines under 1 MiB made a
// 13.7 MB public receipt view.
const MaxOrderItems = 500

// orderItem is one requested line: an inventory id or SKU and a quantity.
type orderItem struct {
	ID  string      `json:"id"`
	SKU string      `json:"sku"`
	Qty json.Number `json:"qty"`
}

type orderRequest struct {
	Items            *[]orderItem `json:"items"`
	Currency         string       `json:"currency"`
	JurisdictionCode string       `json:"jurisdictionCode"`
	TaxRate          *json.Number `json:"taxRate"`
	TaxComponents    []string     `json:"taxComponents"`
	optionalFields
}

func (s *Server) createOrder(c echo.Context) error {
	raw, err := readBody(c)
	if err != nil {
		return err
	}
	var req orderRequest
	if err := decodeBytes(raw, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(c)
	cmd := commands.CreateOrder{Merchant: p.Wallet, Currency: req.Currency, JurisdictionCode: req.JurisdictionCode,
		TaxRate: req.TaxRate, TaxComponents: req.TaxComponents, Issue: s.issueOf(c, p, raw)}
	if req.Items != nil {
		if len(*req.Items) > MaxOrderItems {
			return InvalidInput("items must hold at most " + strconv.Itoa(MaxOrderItems) + " lines")
		}
		for _, it := range *req.Items {
			cmd.Lines = append(cmd.Lines, commands.OrderLine{ID: it.ID, SKU: it.SKU, Qty: it.Qty})
		}
	}
	if err := s.parseOptional(req.optionalFields, &cmd.Details); err != nil {
		return err
	}
	if err := checkLinks(&cmd.Details); err != nil {
		return err
	}
	issued, err := s.issue(c, func(ctx context.Context) (commands.Issued, error) { return s.cmd.CreateOrder.Handle(ctx, cmd) })
	if err != nil {
		return err
	}
	return s.renderIssued(c, issued, http.StatusOK)
}

// issueOf is how a request's receipt is issued: its Idempotency-Key with the hash of the request,
// the API key that signs its webhooks, and the envelope of its events.
func (s *Server) issueOf(c echo.Context, p Principal, rawBody []byte) commands.Issue {
	how := commands.Issue{IdempotencyKey: c.Request().Header.Get("Idempotency-Key"), SigningKey: s.signingKey(c, p), Meta: s.metadata(c, p.Wallet)}
	if how.IdempotencyKey != "" { // the middleware's hash (DESIGN 10): one key, one request, on every route
		how.RequestHash = requestHash(c.Request(), rawBody)
		// Bindings made before stop 60 hold this hash; they expire within 24 h of the upgrade.
		legacy := sha256.Sum256(append([]byte(c.Request().Method+" "+c.Path()+"\n"), rawBody...))
		how.LegacyRequestHash = hex.EncodeToString(legacy[:])
	}
	return how
}

// renderIssued answers {ok, receipt} once the receipt is readable, or the spec's degraded body
// for a receipt journaled while the datastore is down, or stored just before it went away (its
// read model cannot be waited for then; a 503 would invite a retry that orders it twice).
func (s *Server) renderIssued(c echo.Context, issued commands.Issued, status int) error {
	id := issued.State.Receipt.ReceiptID
	if issued.Replayed { // as the Idempotency-Key middleware marks its replays
		c.Response().Header().Set(idemReplayed, "true")
	}
	degraded := func(what string) error {
		zerolog.Ctx(c.Request().Context()).Warn().Str("receipt_id", id).Msg("degraded mode: " + what)
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "degraded": true, "reason": "datastore_unavailable", "receipt": viewReceipt(issued.State)})
	}
	if issued.Degraded {
		return degraded("receipt journaled")
	}
	if issued.Result.Version > 0 {
		err := s.waitReadable(c.Request().Context(), id, issued.Result)
		if unavailable(err) && c.Request().Context().Err() == nil {
			return degraded("receipt stored, its read model not reached")
		}
		if err != nil {
			return err
		}
	}
	return answerIssued(c, status, viewReceipt(issued.State))
}

// signingKey is the API key the request was made with: it signs the receipt's webhooks.
func (s *Server) signingKey(c echo.Context, p Principal) string {
	if p.Secret != "" {
		return p.Secret
	}
	return presentedKey(c.Request())
}
