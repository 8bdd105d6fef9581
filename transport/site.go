package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// SiteStore keeps the platform configuration.
type SiteStore interface {
	Get(ctx context.Context) (readmodels.SiteConfig, error)
	Update(ctx context.Context, change func(*readmodels.SiteConfig) error) (readmodels.SiteConfig, error)
}

func (s *Server) getSiteConfig(c echo.Context) error {
	cfg, err := s.sites.Get(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, cfg)
}

type siteConfigRequest struct {
	Theme               *siteThemePatch `json:"theme"`
	ProcessingFeePct    json.RawMessage `json:"processingFeePct"`
	DefaultPaymentToken *string         `json:"defaultPaymentToken"`
	ReserveRatios       json.RawMessage `json:"reserveRatios"`
}

// siteThemePatch is the theme fields a write gives; the others keep their value, as in a shop's
// theme (a write of one colour used to blank the brand name, logo and favicon of every page).
// Raw, so that null is refused (it would otherwise read as "not given") rather than taken as "".
type siteThemePatch struct {
	PrimaryColor         json.RawMessage `json:"primaryColor"`
	SecondaryColor       json.RawMessage `json:"secondaryColor"`
	BrandLogoURL         json.RawMessage `json:"brandLogoUrl"`
	BrandFaviconURL      json.RawMessage `json:"brandFaviconUrl"`
	BrandName            json.RawMessage `json:"brandName"`
	FontFamily           json.RawMessage `json:"fontFamily"`
	ReceiptBackgroundURL json.RawMessage `json:"receiptBackgroundUrl"`
}

func (s *Server) postSiteConfig(c echo.Context) error {
	var req siteConfigRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	// Checked against the defaults first, so a bad field is refused before the row is locked.
	if err := req.apply(&readmodels.SiteConfig{}); err != nil {
		return err
	}
	cfg, err := s.sites.Update(c.Request().Context(), req.apply)
	s.caches.forgetPricing() // the site's rate prices every merchant's orders
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "config": cfg})
}

// apply checks the fields given and sets them on cfg.
func (req siteConfigRequest) apply(cfg *readmodels.SiteConfig) error {
	if req.Theme != nil {
		if err := req.Theme.apply(&cfg.Theme); err != nil {
			return err
		}
	}
	if req.ProcessingFeePct != nil {
		if isNull(req.ProcessingFeePct) {
			cfg.ProcessingFeePct = nil
		} else {
			pct, err := percent(req.ProcessingFeePct, 10)
			if err != nil {
				return InvalidInput("processingFeePct " + err.Error())
			}
			cfg.ProcessingFeePct = &pct
		}
	}
	if req.DefaultPaymentToken != nil {
		if !slices.Contains(receipt.PaymentTokens(), *req.DefaultPaymentToken) {
			return InvalidInput("defaultPaymentToken must be one of " + strings.Join(receipt.PaymentTokens(), ", "))
		}
		cfg.DefaultPaymentToken = *req.DefaultPaymentToken
	}
	if req.ReserveRatios != nil {
		ratios, err := reserveRatios(req.ReserveRatios)
		if err != nil {
			return err
		}
		cfg.ReserveRatios = ratios
	}
	return nil
}

// apply checks the theme fields given and sets them on t.
func (p siteThemePatch) apply(t *readmodels.SiteTheme) error {
	fields := []struct {
		name  string
		raw   json.RawMessage
		dst   *string
		check func(string) error
	}{
		{"primaryColor", p.PrimaryColor, &t.PrimaryColor, checkColor},
		{"secondaryColor", p.SecondaryColor, &t.SecondaryColor, checkColor},
		{"brandLogoUrl", p.BrandLogoURL, &t.BrandLogoURL, checkConfigURL},
		{"brandFaviconUrl", p.BrandFaviconURL, &t.BrandFaviconURL, checkConfigURL},
		{"receiptBackgroundUrl", p.ReceiptBackgroundURL, &t.ReceiptBackgroundURL, checkConfigURL},
		{"brandName", p.BrandName, &t.BrandName, func(v string) error { return checkLine(v, 200) }},
		{"fontFamily", p.FontFamily, &t.FontFamily, func(v string) error { return checkLine(v, 100) }},
	}
	for _, f := range fields {
		if f.raw == nil {
			continue
		}
		var v string
		if isNull(f.raw) || json.Unmarshal(f.raw, &v) != nil {
			return InvalidInput("theme." + f.name + " must be a string" + notNull)
		}
		if err := f.check(v); err != nil {
			return InvalidInput("theme." + f.name + " " + err.Error())
		}
		*f.dst = v
	}
	return nil
}

// reserveCurrencies are the keys reserveRatios may have: a receipt's currencies, by which the
// reserve recommendation looks its ratio up (GET /api/reserves). Any other key ("USDC", "usd")
// was stored and never used, the default 10% applying with no word, and a body could hold any
// number of them, served on every site config read.
var reserveCurrencies = []string{"USD", "EUR"}

// reserveRatios reads reserveRatios: null clears them.
func reserveRatios(raw json.RawMessage) (map[string]float64, error) {
	var ratios map[string]float64
	if isNull(raw) {
		return ratios, nil
	}
	if json.Unmarshal(raw, &ratios) != nil {
		return nil, InvalidInput("reserveRatios must map currency to a ratio from 0 to 1")
	}
	for k, v := range ratios {
		if !slices.Contains(reserveCurrencies, k) {
			return nil, InvalidInput("reserveRatios keys must be a receipt currency (" + strings.Join(reserveCurrencies, ", ") + "), not " + clip(k))
		}
		if v < 0 || v > 1 {
			return nil, InvalidInput("reserveRatios." + k + " must be a ratio from 0 to 1")
		}
	}
	return ratios, nil
}
