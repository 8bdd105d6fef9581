package readmodels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrSlugTaken is returned when another merchant already uses a shop slug.
var ErrSlugTaken = errors.New("slug taken")

// ShopTheme is a shop's look (spec, ShopTheme).
type ShopTheme struct {
	PrimaryColor   string `json:"primaryColor"`
	SecondaryColor string `json:"secondaryColor"`
	TextColor      string `json:"textColor"`
	AccentColor    string `json:"accentColor"`
	BrandLogoURL   string `json:"brandLogoUrl"`
	CoverPhotoURL  string `json:"coverPhotoUrl"`
	FontFamily     string `json:"fontFamily"`
	LogoShape      string `json:"logoShape"`
	HeroFontSize   string `json:"heroFontSize"`
}

// Link is a labelled shop link.
type Link struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

// ShopConfig is a merchant's shop configuration (spec, ShopConfig) plus the merchant's
// processing-fee add-on in percent.
type ShopConfig struct {
	Name                    string      `json:"name"`
	Description             string      `json:"description"`
	Bio                     string      `json:"bio"`
	Theme                   ShopTheme   `json:"theme"`
	Arrangement             string      `json:"arrangement"`
	XPPerDollar             float64     `json:"xpPerDollar"`
	Slug                    *string     `json:"slug"`
	Links                   []Link      `json:"links"`
	IndustryPack            *string     `json:"industryPack"`
	IndustryPackActivatedAt *int64      `json:"industryPackActivatedAt"`
	SetupComplete           bool        `json:"setupComplete"`
	ProcessingFeePct        json.Number `json:"processingFeePct,omitempty"` // exact decimal, percent
	BrandKey                string      `json:"brandKey,omitempty"`         // partner brand: X-<Brand>-* webhook headers
	WebhookURL              string      `json:"webhookUrl,omitempty"`       // subscription charge webhooks (docs/webhooks.md)
	CreatedAt               int64       `json:"createdAt"`
	UpdatedAt               int64       `json:"updatedAt"`
}

// DefaultShopConfig is the configuration a merchant starts from on its first write.
func DefaultShopConfig() ShopConfig {
	// xpPerDollar is 1 until the merchant sets it (an explicit 0 gives buyers no XP: DESIGN 8).
	return ShopConfig{Arrangement: "grid", Links: []Link{}, XPPerDollar: 1, Theme: ShopTheme{LogoShape: "square", HeroFontSize: "medium"}}
}

// PricingChangedChannel announces, at commit, a change of what order pricing reads: a merchant's
// shop configuration (payload: the wallet) or the site configuration (payload "*").
const PricingChangedChannel = "payledger_pricing_changed"

// Shops stores shop configurations.
type Shops struct{ pool *pgxpool.Pool }

// NewShops returns the shop store on pool.
func NewShops(pool *pgxpool.Pool) *Shops { return &Shops{pool: pool} }

// Get returns wallet's shop config, or ErrNotFound.
func (s *Shops) Get(ctx context.Context, wallet string) (ShopConfig, error) {
	return s.one(ctx, `SELECT config, created_at, updated_at FROM shop_configs WHERE wallet = $1`, wallet)
}

// GetBySlug returns the shop config with the public slug, or ErrNotFound.
func (s *Shops) GetBySlug(ctx context.Context, slug string) (ShopConfig, string, error) {
	var wallet string
	if err := s.pool.QueryRow(ctx, `SELECT wallet FROM shop_configs WHERE slug = $1`, slug).Scan(&wallet); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return ShopConfig{}, "", ErrNotFound
		}
		return ShopConfig{}, "", fmt.Errorf("look up slug: %w", err)
	}
	c, err := s.Get(ctx, wallet)
	return c, wallet, err
}

func (s *Shops) one(ctx context.Context, q string, arg any) (ShopConfig, error) {
	var raw []byte
	var created, updated time.Time
	err := s.pool.QueryRow(ctx, q, arg).Scan(&raw, &created, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return ShopConfig{}, ErrNotFound
	}
	if err != nil {
		return ShopConfig{}, fmt.Errorf("read shop config: %w", err)
	}
	var c ShopConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return ShopConfig{}, fmt.Errorf("decode shop config: %w", err)
	}
	c.CreatedAt, c.UpdatedAt = created.UnixMilli(), updated.UnixMilli()
	return c, nil
}

// Update reads wallet's config (or the default), lets change modify it, and saves it, in one
// transaction. A slug used by another merchant gives ErrSlugTaken; change's error is returned as is.
func (s *Shops) Update(ctx context.Context, wallet string, now time.Time, change func(*ShopConfig) error) (ShopConfig, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return ShopConfig{}, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	// FOR UPDATE locks nothing before the first write: two first writes each started from the
	// defaults and the second insert overwrote the first. The merchant's lock, held to commit,
	// orders them.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payledger shop config:' || $1::text, 0))`, wallet); err != nil {
		return ShopConfig{}, fmt.Errorf("lock shop config: %w", err)
	}
	c := DefaultShopConfig()
	var raw []byte
	created := now
	err = tx.QueryRow(ctx, `SELECT config, created_at FROM shop_configs WHERE wallet = $1 FOR UPDATE`, wallet).Scan(&raw, &created)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return ShopConfig{}, fmt.Errorf("read shop config: %w", err)
	default:
		if err := json.Unmarshal(raw, &c); err != nil {
			return ShopConfig{}, fmt.Errorf("decode shop config: %w", err)
		}
	}
	if err := change(&c); err != nil {
		return ShopConfig{}, err
	}
	c.CreatedAt, c.UpdatedAt = created.UnixMilli(), now.UnixMilli()
	out, err := json.Marshal(c)
	if err != nil {
		return ShopConfig{}, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO shop_configs (wallet, slug, config, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (wallet) DO UPDATE SET slug = EXCLUDED.slug, config = EXCLUDED.config, updated_at = EXCLUDED.updated_at`,
		wallet, c.Slug, out, created, now)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return ShopConfig{}, ErrSlugTaken
	}
	if err != nil {
		return ShopConfig{}, fmt.Errorf("save shop config: %w", err)
	}
	// Pricing caches of every instance forget this merchant when the change commits.
	if _, err := tx.Exec(ctx, `SELECT pg_notify('`+PricingChangedChannel+`', $1)`, wallet); err != nil {
		return ShopConfig{}, fmt.Errorf("announce shop config: %w", err)
	}
	return c, tx.Commit(ctx)
}

// SiteTheme is the platform's look (spec, SiteTheme).
type SiteTheme struct {
	PrimaryColor         string `json:"primaryColor"`
	SecondaryColor       string `json:"secondaryColor"`
	BrandLogoURL         string `json:"brandLogoUrl"`
	BrandFaviconURL      string `json:"brandFaviconUrl"`
	BrandName            string `json:"brandName"`
	FontFamily           string `json:"fontFamily"`
	ReceiptBackgroundURL string `json:"receiptBackgroundUrl"`
}

// SiteConfig is the platform's defaults (spec, SiteConfig).
type SiteConfig struct {
	Theme               SiteTheme          `json:"theme"`
	ProcessingFeePct    *json.Number       `json:"processingFeePct"` // percent; replaces the 0.5% base
	DefaultPaymentToken string             `json:"defaultPaymentToken"`
	ReserveRatios       map[string]float64 `json:"reserveRatios"`
}

// Sites stores the platform configuration.
type Sites struct{ pool *pgxpool.Pool }

// NewSites returns the site store on pool.
func NewSites(pool *pgxpool.Pool) *Sites { return &Sites{pool: pool} }

// defaultSiteConfig is the site configuration before an admin saved one.
func defaultSiteConfig() SiteConfig { return SiteConfig{DefaultPaymentToken: "USDC"} }

// Get returns the site configuration (the defaults when none was saved).
func (s *Sites) Get(ctx context.Context) (SiteConfig, error) {
	var raw []byte
	err := s.pool.QueryRow(ctx, `SELECT config FROM site_config WHERE id = 1`).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return defaultSiteConfig(), nil
	}
	if err != nil {
		return SiteConfig{}, fmt.Errorf("read site config: %w", err)
	}
	var c SiteConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return SiteConfig{}, fmt.Errorf("decode site config: %w", err)
	}
	return c, nil
}

// Save replaces the site configuration.
func (s *Sites) Save(ctx context.Context, c SiteConfig) error {
	raw, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `WITH up AS (INSERT INTO site_config (id, config) VALUES (1, $1)
			ON CONFLICT (id) DO UPDATE SET config = EXCLUDED.config, updated_at = now() RETURNING 1)
		SELECT pg_notify('`+PricingChangedChannel+`', '*') FROM up`, raw)
	if err != nil {
		return fmt.Errorf("save site config: %w", err)
	}
	return nil
}

// Update reads the site configuration (or the defaults), lets change modify it and saves it, in
// one transaction holding the row: two admins changing different fields at once both keep their
// change, where a read and a later save would let the second save undo the first. change's error
// is returned as is and saves nothing.
func (s *Sites) Update(ctx context.Context, change func(*SiteConfig) error) (SiteConfig, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return SiteConfig{}, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	// The row must exist to be locked; the first update creates it with the defaults.
	def, err := json.Marshal(defaultSiteConfig())
	if err != nil {
		return SiteConfig{}, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO site_config (id, config) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, def); err != nil {
		return SiteConfig{}, fmt.Errorf("create site config: %w", err)
	}
	var raw []byte
	if err := tx.QueryRow(ctx, `SELECT config FROM site_config WHERE id = 1 FOR UPDATE`).Scan(&raw); err != nil {
		return SiteConfig{}, fmt.Errorf("read site config: %w", err)
	}
	var c SiteConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return SiteConfig{}, fmt.Errorf("decode site config: %w", err)
	}
	if err := change(&c); err != nil {
		return SiteConfig{}, err
	}
	if raw, err = json.Marshal(c); err != nil {
		return SiteConfig{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE site_config SET config = $1, updated_at = now() WHERE id = 1`, raw); err != nil {
		return SiteConfig{}, fmt.Errorf("save site config: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify('`+PricingChangedChannel+`', '*')`); err != nil {
		return SiteConfig{}, fmt.Errorf("announce site config: %w", err)
	}
	return c, tx.Commit(ctx)
}

// PricingSettings reads the platform configuration and wallet's shop configuration (found says
// whether it has one) in one round trip: order creation needs both.
func (s *Shops) PricingSettings(ctx context.Context, wallet string) (shop ShopConfig, found bool, site SiteConfig, err error) {
	var shopRaw, siteRaw []byte
	err = s.pool.QueryRow(ctx, `SELECT (SELECT config FROM shop_configs WHERE wallet = $1), (SELECT config FROM site_config WHERE id = 1)`, wallet).
		Scan(&shopRaw, &siteRaw)
	if err != nil {
		return shop, false, site, fmt.Errorf("read pricing settings: %w", err)
	}
	site = defaultSiteConfig()
	if siteRaw != nil {
		if err := json.Unmarshal(siteRaw, &site); err != nil {
			return shop, false, site, fmt.Errorf("decode site config: %w", err)
		}
	}
	if shopRaw != nil {
		if err := json.Unmarshal(shopRaw, &shop); err != nil {
			return shop, false, site, fmt.Errorf("decode shop config: %w", err)
		}
		found = true
	}
	return shop, found, site, nil
}
