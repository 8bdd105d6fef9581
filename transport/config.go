package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/domain/tax"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// SiteStore keeps the platform configuration.
type SiteStore interface {
	Get(ctx context.Context) (readmodels.SiteConfig, error)
	Save(ctx context.Context, c readmodels.SiteConfig) error
}

var paymentTokens = []string{"ETH", "USDC", "USDT", "cbBTC", "cbXRP"}

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
	if req.Theme != nil {
		t := req.Theme
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
		cfg.Theme = *t
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
		if !slices.Contains(paymentTokens, *req.DefaultPaymentToken) {
			return InvalidInput("defaultPaymentToken must be one of " + strings.Join(paymentTokens, ", "))
		}
		cfg.DefaultPaymentToken = *req.DefaultPaymentToken
	}
	if req.ReserveRatios != nil {
		var ratios map[string]float64
		if !isNull(req.ReserveRatios) {
			if json.Unmarshal(req.ReserveRatios, &ratios) != nil {
				return InvalidInput("reserveRatios must map currency to a ratio from 0 to 1")
			}
			for k, v := range ratios {
				if v < 0 || v > 1 || k == "" {
					return InvalidInput("reserveRatios." + k + " must be a ratio from 0 to 1")
				}
			}
		}
		cfg.ReserveRatios = ratios
	}
	err = s.sites.Save(ctx, cfg)
	s.caches.forgetPricing() // the site's rate prices every merchant's orders
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "config": cfg})
}

type splitView struct {
	Address    *string           `json:"address"`
	Recipients []split.Recipient `json:"recipients"`
}

func viewSplit(st split.State) splitView {
	v := splitView{Recipients: []split.Recipient{}}
	if st.Configured {
		a := st.Address
		v.Address, v.Recipients = &a, st.Recipients
	}
	return v
}

func (s *Server) getSplit(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	st, err := commands.LoadSplit(c.Request().Context(), s.events, p.Wallet)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"split": viewSplit(st)})
}

type splitRequest struct {
	SplitAddress string             `json:"splitAddress"`
	Recipients   *[]split.Recipient `json:"recipients"`
}

func (s *Server) postSplit(c echo.Context) error {
	var req splitRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	cmd := split.Configure{Merchant: sess.Wallet, Address: req.SplitAddress, Platform: s.cfg.PlatformRecipient}
	if req.Recipients != nil {
		cmd.Recipients = *req.Recipients
		if cmd.Recipients == nil {
			cmd.Recipients = []split.Recipient{}
		}
	}
	res, err := commands.ConfigureSplit(c.Request().Context(), s.events, s.now(), s.metadata(c, sess.Wallet), cmd)
	switch {
	case errors.Is(err, split.ErrPlatformNotConfigured):
		return NewError(http.StatusBadRequest, "platform_recipient_not_configured", "Platform recipient address not set up")
	case errors.Is(err, split.ErrAddressRequired):
		return InvalidInput("splitAddress is required: " + err.Error())
	case errors.Is(err, split.ErrInvalid):
		return InvalidInput(err.Error())
	case err != nil:
		return err
	}
	body := map[string]any{"ok": true, "split": viewSplit(res.State)}
	if res.Idempotent {
		body["idempotent"] = true
	}
	return c.JSON(http.StatusOK, body)
}

// metadata is the envelope of events a request causes.
func (s *Server) metadata(c echo.Context, actor string) eventstore.Metadata {
	return eventstore.Metadata{CorrelationID: CorrelationID(c.Request().Context()), Actor: actor, Source: "api " + c.Request().Method + " " + c.Path()}
}

func (s *Server) withdraw(c echo.Context) error {
	return &Error{Status: http.StatusGone, Code: "deprecated", Message: "Split withdraw is retired: call the split contract's release function from the connected wallet",
		Extra: map[string]any{"reason": "use_connected_wallet"}}
}

type componentView struct {
	Name string  `json:"name"`
	Rate float64 `json:"rate"`
}

type jurisdictionView struct {
	Code       string          `json:"code"`
	Name       string          `json:"name"`
	Components []componentView `json:"components"`
	TotalRate  float64         `json:"totalRate"`
}

func (s *Server) taxCatalog(c echo.Context) error {
	filter := strings.ToUpper(strings.TrimSpace(c.QueryParam("jurisdiction")))
	out := []jurisdictionView{}
	for _, j := range tax.All() {
		if filter != "" && j.Code != strings.TrimPrefix(filter, "EU-") {
			continue
		}
		v := jurisdictionView{Code: j.Code, Name: j.Name, TotalRate: j.Total().Float(), Components: []componentView{}}
		for _, comp := range j.Components {
			v.Components = append(v.Components, componentView{Name: comp.Name, Rate: comp.Rate.Float()})
		}
		out = append(out, v)
	}
	return c.JSON(http.StatusOK, map[string]any{"jurisdictions": out})
}
