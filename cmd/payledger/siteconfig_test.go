package main

import (
	"crypto/rand"
	"testing"
)

// Issue 20, item 4 (spec, Authentication point 1: GET /api/site/config is public unless gateway
// enforcement is on): the key requirement follows AUTH_MODE; SITE_CONFIG_REQUIRES_KEY is only an
// explicit override, either way.
func TestSiteConfigKeyFollowsGatewayMode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode, override string
		want           bool
	}{
		{"standalone", "", false},
		{"gateway", "", true},
		{"gateway", "false", false},
		{"standalone", "true", true},
	}
	for _, c := range cases {
		vars := map[string]string{"AUTH_MODE": c.mode, "EDGE_SECRET": "edge", "SITE_CONFIG_REQUIRES_KEY": c.override}
		cfg, _, err := loadConfig(env(vars), rand.Reader)
		if err != nil {
			t.Fatalf("%v: %v", vars, err)
		}
		if cfg.SiteConfigRequiresKey != c.want {
			t.Errorf("AUTH_MODE=%s SITE_CONFIG_REQUIRES_KEY=%q: requires key %v, want %v", c.mode, c.override, cfg.SiteConfigRequiresKey, c.want)
		}
	}
}
