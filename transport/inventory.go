package transport

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/inventory"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/readmodels"
)

// InventoryStore keeps merchants' items.
type InventoryStore interface {
	Upsert(ctx context.Context, it readmodels.Item) (readmodels.Item, bool, error)
	Delete(ctx context.Context, wallet string, id uuid.UUID) error
	Find(ctx context.Context, wallet string, ids []uuid.UUID, skus []string) ([]readmodels.Item, error)
	List(ctx context.Context, wallet string, f readmodels.ItemFilter) ([]readmodels.Item, string, error)
}

type itemView struct {
	ID        string   `json:"id"`
	SKU       string   `json:"sku"`
	Name      string   `json:"name"`
	PriceUSD  *float64 `json:"priceUsd,omitempty"`
	Price     float64  `json:"price"`
	Currency  string   `json:"currency"`
	StockQty  int64    `json:"stockQty"`
	Taxable   bool     `json:"taxable"`
	Thumb     string   `json:"thumb,omitempty"`
	CreatedAt int64    `json:"createdAt"`
	UpdatedAt int64    `json:"updatedAt"`
}

func viewItem(it readmodels.Item) itemView {
	price := money.Cents(it.PriceCents).Float()
	v := itemView{ID: it.ID.String(), SKU: it.SKU, Name: it.Name, Price: price, Currency: it.Currency, StockQty: it.StockQty,
		Taxable: it.Taxable, Thumb: it.Thumb, CreatedAt: it.CreatedAt.UnixMilli(), UpdatedAt: it.UpdatedAt.UnixMilli()}
	if it.Currency == "USD" {
		v.PriceUSD = &price
	}
	return v
}

type itemRequest struct {
	SKU      *string      `json:"sku"`
	Name     *string      `json:"name"`
	PriceUSD *json.Number `json:"priceUsd"`
	Price    *json.Number `json:"price"`
	Currency *string      `json:"currency"`
	StockQty *json.Number `json:"stockQty"`
	Taxable  *bool        `json:"taxable"`
	Thumb    *string      `json:"thumb"`
}

// parseItem checks an inventory write against the item rules (domain/inventory); a broken one is
// inventory.ErrInvalid, which errors.go answers 400 invalid_input naming the field.
func parseItem(req itemRequest, wallet string) (readmodels.Item, error) {
	it, err := inventory.Check(inventory.Draft{SKU: req.SKU, Name: req.Name, PriceUSD: numberText(req.PriceUSD), Price: numberText(req.Price),
		StockQty: numberText(req.StockQty), Currency: req.Currency, Thumb: req.Thumb, Taxable: req.Taxable})
	if err != nil {
		return readmodels.Item{Wallet: wallet, StockQty: -1}, err
	}
	// The name is each receipt line's label (and the thumb's initial): as a shop's name, it holds
	// no control or bidi-override characters, which would make a line read as something else.
	if checkLine(it.Name, 200) != nil {
		return readmodels.Item{Wallet: wallet, StockQty: -1}, InvalidInput("name must not contain control characters")
	}
	return readmodels.Item{Wallet: wallet, SKU: it.SKU, Name: it.Name, PriceCents: it.PriceCents, Currency: it.Currency,
		StockQty: it.StockQty, HasStock: it.HasStock, Taxable: it.Taxable, HasTaxable: it.HasTaxable, Thumb: it.Thumb, HasThumb: it.HasThumb}, nil
}

// numberText is a JSON number's text (nil: not given).
func numberText(n *json.Number) *string {
	if n == nil {
		return nil
	}
	s := n.String()
	return &s
}

func (s *Server) postInventory(c echo.Context) error {
	var req itemRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(c)
	it, err := parseItem(req, p.Wallet)
	if err != nil {
		return err
	}
	saved, created, err := s.inventory.Upsert(c.Request().Context(), it)
	s.caches.forgetInventory(it.Wallet)
	if errors.Is(err, readmodels.ErrTooManyItems) {
		return InvalidInput(fmt.Sprintf("an inventory holds at most %d items; delete one before adding another", readmodels.MaxItems))
	}
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, map[string]any{"ok": true, "item": viewItem(saved)})
}

func (s *Server) listInventory(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	f := readmodels.ItemFilter{Q: c.QueryParam("q"), SKU: c.QueryParam("sku"), Cursor: c.QueryParam("cursor"), Limit: 25}
	if err := checkSearchText("q", f.Q); err != nil {
		return err
	}
	if cur := c.QueryParam("currency"); cur != "" {
		f.Currency = strings.ToUpper(cur)
		if f.Currency != "USD" && f.Currency != "EUR" {
			return InvalidInput("currency must be USD or EUR")
		}
	}
	if t := c.QueryParam("taxable"); t != "" {
		b, err := strconv.ParseBool(t)
		if err != nil {
			return InvalidInput("taxable must be true or false")
		}
		f.Taxable = &b
	}
	limit, err := intParam(c, "limit", 25, 1, 100)
	if err != nil {
		return err
	}
	f.Limit = limit
	items, next, err := s.inventory.List(c.Request().Context(), p.Wallet, f)
	if errors.Is(err, readmodels.ErrBadCursor) {
		return InvalidInput("cursor is not one this API issued")
	}
	if err != nil {
		return err
	}
	out := make([]itemView, len(items))
	for i, it := range items {
		out[i] = viewItem(it)
	}
	return c.JSON(http.StatusOK, map[string]any{"items": out, "next": nullable(next)})
}

func (s *Server) deleteInventory(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	raw := c.QueryParam("id")
	if raw == "" { // a missing field (invalid_input), not an unknown item
		return InvalidInput("id is required: the item's id as GET /api/inventory shows it")
	}
	id, err := uuid.Parse(raw)
	if err == nil {
		err = s.inventory.Delete(c.Request().Context(), p.Wallet, id)
		s.caches.forgetInventory(p.Wallet)
	} else {
		err = readmodels.ErrNotFound
	}
	if errors.Is(err, readmodels.ErrNotFound) { // the spec's code for an unknown id (a 404 is a missing shop config)
		return NewError(http.StatusBadRequest, "inventory_item_not_found", "Product not found in inventory")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

// placeholderThumb is a small SVG with the item's initial, for items without a picture.
func placeholderThumb(name string) string {
	initial := '?'
	if r, _ := utf8.DecodeRuneInString(strings.TrimSpace(name)); r != utf8.RuneError {
		initial = unicode.ToUpper(r)
	}
	if initial < utf8.RuneSelf {
		return asciiThumbs[initial] // drawn on every receipt read, so drawn once
	}
	return drawThumb(string(initial))
}

// asciiThumbs holds the placeholder for every ASCII initial.
var asciiThumbs = func() (t [utf8.RuneSelf]string) {
	for r := range t {
		t[r] = drawThumb(string(rune(r)))
	}
	return t
}()

func drawThumb(initial string) string {
	initial = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(initial)
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#e5e7eb"/>` +
		`<text x="32" y="42" font-size="28" text-anchor="middle" font-family="sans-serif" fill="#374151">` + initial + `</text></svg>`
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg))
}
