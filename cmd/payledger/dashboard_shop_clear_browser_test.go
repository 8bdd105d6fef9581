package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/migrations/pgtest"
)

// The settings page's shop branding form left empty fields out of its body, so a merchant who
// emptied the logo URL (or the name) and saved kept the old one, with no word: "" is what clears
// them in the API. The form now sends "" for them.
func TestDashboardShopBrandingClearsInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	base, _ := startServe(t, map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off",
		"RATE_LIMIT_PUBLIC_PER_MINUTE": "100000", "RATE_LIMIT_PER_MINUTE": "100000"})
	mkey, _ := crypto.GenerateKey()
	session, csrf := dashSession(t, base, mkey)
	dashCall(t, session, http.MethodPost, base+"/api/shop/config", map[string]any{"name": "Old Cafe", "theme": map[string]any{"brandLogoUrl": "https://example.com/logo.png"}},
		map[string]string{"x-csrf-token": csrf}, 200)

	ctx, cancel := context.WithTimeout((&portalEnv{}).browser(t, nil), 2*time.Minute)
	defer cancel()
	signedIn(t, ctx, base, mkey)
	navigate(t, ctx, base+"/dashboard/settings")
	if got := evalString(t, ctx, `document.getElementById("shop-logo").value + "|" + document.getElementById("shop-name").value`); got != "https://example.com/logo.png|Old Cafe" {
		t.Fatalf("the form shows %q", got)
	}
	evalString(t, ctx, `(function () { window.__before = 1; document.getElementById("shop-logo").value = ""; document.getElementById("shop-name").value = "";
		document.querySelector("#shop [type=submit]").click(); return ""; })()`)
	waitJS(t, ctx, `window.__before === undefined && document.documentElement.dataset.ready === "1" || !document.querySelector("#shop .error").hidden`, 20*time.Second)
	if got := evalString(t, ctx, `document.getElementById("shop-logo").value + "|" + document.getElementById("shop-name").value + "|" + (document.querySelector("#shop .error") || {}).textContent`); got != "||" {
		t.Fatalf("after emptying the logo and the name and saving, the form shows %q", strings.TrimSpace(got))
	}
}
