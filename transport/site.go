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
	Save(ctx context.Context, c readmodels.SiteConfig) error
}

func (s *Server) getSiteConfig(c echo.Context) error {
	cfg, err := s.sites.Get(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, cfg)
}

type siteConfigRequest struct {
	Theme               *readmodels.SiteTheme `json:"theme"`
	ProcessingFeePct    json.RawMessage       `json:"processingFeePct"`
	DefaultPaymentToken *string               `json:"defaultPaymentToken"`
	ReserveRatios       json.RawMessage       `json:"reserveRatios"`
}

func (s *Server) postSiteConfig(c echo.Context) error {
	var req siteConfigRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	cfg, err := s.sites.Get(ctx)
	if err != nil {
		return err
	}
	if err := req.apply(&cfg); err != nil {
		return err
	}
	err = s.sites.Save(ctx, cfg)
	s.caches.forgetPricing() // the site's rate prices every merchant's orders
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "config": cfg})
}

// apply checks the fields given and sets them on cfg.
func (req siteConfigRequest) apply(cfg *readmodels.SiteConfig) error {
	if req.Theme != nil {
		if err := checkSiteTheme(*req.Theme); err != nil {
			return err
		}
		cfg.Theme = *req.Theme
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

func checkSiteTheme(t readmodels.SiteTheme) error {
	for name, v := range map[string]string{"primaryColor": t.PrimaryColor, "secondaryColor": t.SecondaryColor} {
		if v != "" && !colorRE.MatchString(v) {
			return InvalidInput("theme." + name + " must be a colour #RGB or #RRGGBB")
		}
	}
	for name, v := range map[string]string{"brandLogoUrl": t.BrandLogoURL, "brandFaviconUrl": t.BrandFaviconURL, "receiptBackgroundUrl": t.ReceiptBackgroundURL} {
		if v != "" && !httpURL(v) {
			return InvalidInput("theme." + name + " must be an http(s) URL")
		}
	}
	return nil
}

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
		if v < 0 || v > 1 || k == "" {
			return nil, InvalidInput("reserveRatios." + k + " must be a ratio from 0 to 1")
		}
	}
	return ratios, nil
}
