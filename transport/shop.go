package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	linetext "github.com/payledger/payledger/domain/text"
	"github.com/payledger/payledger/readmodels"
)

// ShopStore keeps merchants' shop configurations.
type ShopStore interface {
	Get(ctx context.Context, wallet string) (readmodels.ShopConfig, error)
	GetBySlug(ctx context.Context, slug string) (readmodels.ShopConfig, string, error)
	Update(ctx context.Context, wallet string, now time.Time, change func(*readmodels.ShopConfig) error) (readmodels.ShopConfig, error)
	PricingSettings(ctx context.Context, wallet string) (readmodels.ShopConfig, bool, readmodels.SiteConfig, error)
}

var (
	colorRE = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	slugRE  = regexp.MustCompile(`^[a-z0-9-]{3,40}$`)

	brandKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{1,30}$`)

	arrangements  = []string{"grid", "featured_first", "groups", "carousel"}
	industryPacks = []string{"restaurant", "retail", "hotel", "freelancer"}
	logoShapes    = []string{"square", "circle"}
	heroSizes     = []string{"microtext", "small", "medium", "large", "xlarge"}
)

func (s *Server) getShopConfig(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	ctx := c.Request().Context()
	var cfg readmodels.ShopConfig
	var owner string
	var err error
	if slug := c.QueryParam("slug"); slug != "" {
		cfg, owner, err = s.shops.GetBySlug(ctx, slug)
	} else {
		cfg, err = s.shops.Get(ctx, p.Wallet)
		owner = p.Wallet
	}
	if errors.Is(err, readmodels.ErrNotFound) {
		// An authenticated merchant without a config gets 404, never defaults (spec).
		return NewError(http.StatusNotFound, "not_found", "Shop config not found")
	}
	if err != nil {
		return err
	}
	if !strings.EqualFold(owner, p.Wallet) {
		// Another merchant's shop: only what its public page shows (DESIGN 9), never its webhook
		// URL (and whatever token it carries), brand key or fees.
		return c.JSON(http.StatusOK, map[string]any{"config": publicShopConfig(cfg)})
	}
	return c.JSON(http.StatusOK, map[string]any{"config": cfg})
}

// publicShopView is the part of a shop configuration anyone may see.
type publicShopView struct {
	Name         string               `json:"name"`
	Description  string               `json:"description"`
	Bio          string               `json:"bio"`
	Theme        readmodels.ShopTheme `json:"theme"`
	Arrangement  string               `json:"arrangement"`
	Links        []readmodels.Link    `json:"links"`
	Slug         *string              `json:"slug"`
	IndustryPack *string              `json:"industryPack"`
}

func publicShopConfig(cfg readmodels.ShopConfig) publicShopView {
	return publicShopView{Name: cfg.Name, Description: cfg.Description, Bio: cfg.Bio, Theme: cfg.Theme,
		Arrangement: cfg.Arrangement, Links: cfg.Links, Slug: cfg.Slug, IndustryPack: cfg.IndustryPack}
}

func (s *Server) postShopConfig(c echo.Context) error {
	var patch map[string]json.RawMessage
	if err := DecodeJSON(c, &patch); err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	now := s.now()
	// Validate against a scratch copy first, so a bad field writes nothing.
	scratch := &readmodels.ShopConfig{}
	if err := applyShopPatch(scratch, patch, now); err != nil {
		return err
	}
	if scratch.WebhookURL != "" { // the rules of a receipt's webhook_url
		if err := s.checkWebhookURL("webhookUrl", scratch.WebhookURL); err != nil {
			return err
		}
	}
	cfg, err := s.shops.Update(c.Request().Context(), sess.Wallet, now, func(cfg *readmodels.ShopConfig) error {
		return applyShopPatch(cfg, patch, now)
	})
	s.caches.forgetPricing(sess.Wallet)
	if errors.Is(err, readmodels.ErrSlugTaken) {
		return NewError(http.StatusConflict, "conflict", "slug is already used by another merchant")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "config": cfg})
}

// applyShopPatch applies the present fields of patch to cfg, validating each; the first bad field
// gives invalid_input naming it.
func applyShopPatch(cfg *readmodels.ShopConfig, patch map[string]json.RawMessage, now time.Time) error {
	for field, raw := range patch {
		if err := applyShopField(cfg, field, raw, now); err != nil {
			return err
		}
	}
	return nil
}

// notNull ends the message of a field that is not nullable: null would otherwise silently become
// 0, false or "" (docs/decisions.md). Only slug and industryPack take null, to clear them.
const notNull = "; null is not accepted (omit the field to leave it unchanged)"

func applyShopField(cfg *readmodels.ShopConfig, field string, raw json.RawMessage, now time.Time) error {
	bad := func(why string) error { return InvalidInput(field + " " + why) }
	switch field {
	case "name", "description", "bio":
		v, err := text(raw, map[string]int{"name": 200, "description": 2000, "bio": 2000}[field], field != "name")
		if err != nil {
			return bad(err.Error())
		}
		*map[string]*string{"name": &cfg.Name, "description": &cfg.Description, "bio": &cfg.Bio}[field] = v
	case "arrangement":
		v, err := enum(raw, arrangements)
		if err != nil {
			return bad(err.Error())
		}
		cfg.Arrangement = v
	case "xpPerDollar":
		var v float64
		if isNull(raw) || json.Unmarshal(raw, &v) != nil || v < 0 || v > maxXPPerDollar {
			return bad(fmt.Sprintf("must be a number from 0 to %d%s", maxXPPerDollar, notNull))
		}
		cfg.XPPerDollar = v
	case "setupComplete":
		if isNull(raw) || json.Unmarshal(raw, &cfg.SetupComplete) != nil {
			return bad("must be a boolean" + notNull)
		}
	case "slug":
		return applySlug(cfg, raw, bad)
	case "industryPack":
		return applyIndustryPack(cfg, raw, now, bad)
	case "links":
		return applyLinks(cfg, raw, bad)
	case "brandKey":
		return applyBrandKey(cfg, raw, bad)
	case "webhookUrl":
		return applyWebhookURL(cfg, raw, bad)
	case "processingFeePct":
		pct, err := percent(raw, 10)
		if err != nil {
			return bad(err.Error())
		}
		cfg.ProcessingFeePct = pct
	case "theme":
		return applyTheme(cfg, raw, bad)
	default:
		return InvalidInput("unknown field " + field)
	}
	return nil
}

func applyBrandKey(cfg *readmodels.ShopConfig, raw json.RawMessage, bad func(string) error) error {
	var v string
	if isNull(raw) || json.Unmarshal(raw, &v) != nil || (v != "" && !brandKeyRE.MatchString(v)) {
		return bad("must be 2-31 letters and digits, starting with a letter (\"\" clears it)" + notNull)
	}
	cfg.BrandKey = v
	return nil
}

// applyWebhookURL sets where subscription charge webhooks go; "" stops them. Its shape is checked
// here; the production rules (https, no private host), which need the server's configuration,
// by the handler, as for a receipt's webhook_url.
func applyWebhookURL(cfg *readmodels.ShopConfig, raw json.RawMessage, bad func(string) error) error {
	var v string
	if isNull(raw) || json.Unmarshal(raw, &v) != nil || (v != "" && !httpURL(v)) || len(v) > 2000 {
		return bad("must be an http(s) URL (\"\" stops them)" + notNull)
	}
	cfg.WebhookURL = v
	return nil
}

func applyTheme(cfg *readmodels.ShopConfig, raw json.RawMessage, bad func(string) error) error {
	var theme map[string]json.RawMessage
	if json.Unmarshal(raw, &theme) != nil || theme == nil {
		return bad("must be an object")
	}
	for k, v := range theme {
		if err := applyThemeField(&cfg.Theme, k, v); err != nil {
			return err
		}
	}
	return nil
}

func applySlug(cfg *readmodels.ShopConfig, raw json.RawMessage, bad func(string) error) error {
	if isNull(raw) {
		cfg.Slug = nil
		return nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil || !slugRE.MatchString(v) {
		return bad("must be 3-40 characters of a-z, 0-9 and '-'")
	}
	cfg.Slug = &v
	return nil
}

// applyIndustryPack sets the pack and, when it changes, the time it was activated.
func applyIndustryPack(cfg *readmodels.ShopConfig, raw json.RawMessage, now time.Time, bad func(string) error) error {
	if isNull(raw) {
		cfg.IndustryPack, cfg.IndustryPackActivatedAt = nil, nil
		return nil
	}
	v, err := enum(raw, industryPacks)
	if err != nil {
		return bad(err.Error())
	}
	if cfg.IndustryPack == nil || *cfg.IndustryPack != v {
		at := now.UnixMilli()
		cfg.IndustryPack, cfg.IndustryPackActivatedAt = &v, &at
	}
	return nil
}

func applyLinks(cfg *readmodels.ShopConfig, raw json.RawMessage, bad func(string) error) error {
	var links []readmodels.Link
	if json.Unmarshal(raw, &links) != nil || links == nil {
		return bad("must be an array of {label, url}")
	}
	if len(links) > 20 {
		return bad("may hold at most 20 links")
	}
	for i, l := range links {
		if strings.TrimSpace(l.Label) == "" || checkLine(l.Label, 100) != nil || l.URL == "" || checkConfigURL(l.URL) != nil {
			return InvalidInput(fmt.Sprintf("links[%d] needs a label (up to 100 characters, no control characters) and an http(s) url of up to %d characters", i, maxConfigURL))
		}
	}
	cfg.Links = links
	return nil
}

func applyThemeField(t *readmodels.ShopTheme, field string, raw json.RawMessage) error {
	bad := func(why string) error { return InvalidInput("theme." + field + " " + why) }
	colors := map[string]*string{"primaryColor": &t.PrimaryColor, "secondaryColor": &t.SecondaryColor, "textColor": &t.TextColor, "accentColor": &t.AccentColor}
	urls := map[string]*string{"brandLogoUrl": &t.BrandLogoURL, "coverPhotoUrl": &t.CoverPhotoURL}
	var err error
	switch {
	case colors[field] != nil:
		var v string
		if isNull(raw) || json.Unmarshal(raw, &v) != nil || checkColor(v) != nil {
			return bad("must be a colour #RGB or #RRGGBB (\"\" clears it)" + notNull)
		}
		*colors[field] = v
	case urls[field] != nil:
		var v string
		// An image the https payment page shows: an http one is mixed content the page leaves out,
		// so it is refused here rather than taken and never shown (stop 67).
		if isNull(raw) || json.Unmarshal(raw, &v) != nil || checkConfigURL(v) != nil || (v != "" && !strings.HasPrefix(v, "https://")) {
			return bad(fmt.Sprintf("must be an https URL of up to %d characters (\"\" clears it)%s", maxConfigURL, notNull))
		}
		*urls[field] = v
	case field == "fontFamily":
		if t.FontFamily, err = text(raw, 100, false); err != nil {
			return bad(err.Error())
		}
	case field == "logoShape":
		if t.LogoShape, err = enum(raw, logoShapes); err != nil {
			return bad(err.Error())
		}
	case field == "heroFontSize":
		if t.HeroFontSize, err = enum(raw, heroSizes); err != nil {
			return bad(err.Error())
		}
	default:
		return InvalidInput("unknown field theme." + field)
	}
	return nil
}

const (
	// maxXPPerDollar keeps a receipt's XP (floor(totalUsd × xpPerDollar), an int64 in the users
	// projection) in range for the largest receipt (10^13 USD, or its EUR at the highest rate):
	// 1e300 was accepted and wrapped the buyer's XP to garbage or overflowed the users' total.
	maxXPPerDollar = 10_000
	// maxConfigURL bounds every URL of a shop or site configuration, as webhookUrl already was;
	// a link or logo URL could otherwise fill the whole request body, served on every shop read.
	maxConfigURL = 2000
)

// text reads a string of up to max characters (not bytes: a name in a non-Latin script is not
// cut to a third) without control characters; multiline allows line breaks and tabs.
func text(raw json.RawMessage, max int, multiline bool) (string, error) {
	var v string
	if isNull(raw) || json.Unmarshal(raw, &v) != nil {
		return "", errors.New("must be a string" + notNull)
	}
	if multiline {
		return v, checkLines(v, max)
	}
	return v, checkLine(v, max)
}

// checkLine refuses more than max characters, and control and bidirectional formatting
// characters: a shop or brand name is shown on receipts, where an escape sequence or a
// right-to-left override would make it read as something else.
func checkLine(v string, max int) error {
	return checkChars(v, max, func(rune) bool { return false })
}

// checkLines is checkLine for a text of several lines.
func checkLines(v string, max int) error {
	return checkChars(v, max, func(r rune) bool { return r == '\n' || r == '\r' || r == '\t' })
}

func checkChars(v string, max int, allowed func(rune) bool) error {
	if utf8.RuneCountInString(v) > max {
		return fmt.Errorf("must be at most %d characters", max)
	}
	for _, r := range v {
		if linetext.Reorders(r) && !allowed(r) {
			return errors.New("must not contain control characters")
		}
	}
	return nil
}

// checkColor accepts #RGB, #RRGGBB or "" (cleared).
func checkColor(v string) error {
	if v != "" && !colorRE.MatchString(v) {
		return errors.New("must be a colour #RGB or #RRGGBB")
	}
	return nil
}

// checkConfigURL accepts an http(s) URL of up to maxConfigURL characters or "" (cleared).
func checkConfigURL(v string) error {
	if v != "" && (len(v) > maxConfigURL || !httpURL(v)) {
		return fmt.Errorf("must be an http(s) URL of up to %d characters", maxConfigURL)
	}
	return nil
}
