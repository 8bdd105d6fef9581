// Package dashboard renders the merchant dashboard's pages and serves their two static files.
//
// Pages are rendered on the server with html/template, so every merchant- or buyer-supplied
// text is escaped there. The one script (dash.js) signs in with a browser wallet and sends the
// forms to the admin API with the session's CSRF token; no script is inline, and the pages carry
// the payment page's Content-Security-Policy.
package dashboard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/payledger/payledger/transport/page"
)

//go:embed static templates
var files embed.FS

// StaticPrefix is where the dashboard's assets are served: /dashboard/static/<hash>/<file>.
const StaticPrefix = "/dashboard/static/"

// UI holds the parsed templates and the assets under their content-hashed path.
type UI struct {
	hash   string
	assets map[string][]byte
	pages  map[string]*template.Template
}

// Pages are the templates a handler may render.
var Pages = []string{"login", "link", "receipts", "receipt", "settings", "notfound"}

// Load parses the templates and hashes the assets.
func Load() (*UI, error) {
	u := &UI{assets: map[string][]byte{}, pages: map[string]*template.Template{}}
	h := sha256.New()
	err := fs.WalkDir(files, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		u.assets[path.Base(p)] = b
		h.Write([]byte(p))
		h.Write(b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	u.hash = hex.EncodeToString(h.Sum(nil))[:16]
	for _, name := range Pages {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("dashboard template %s: %w", name, err)
		}
		u.pages[name] = t
	}
	return u, nil
}

var funcs = template.FuncMap{
	"short": func(s string) string { // a hash as the history shows it
		if len(s) > 14 {
			return s[:8] + "…" + s[len(s)-4:]
		}
		return s
	},
	"badge": func(status string) string { return "badge " + strings.ReplaceAll(status, "_", "-") },
}

// Asset is the URL of an asset.
func (u *UI) Asset(name string) string { return StaticPrefix + u.hash + "/" + name }

// ServeAsset answers /dashboard/static/<hash>/<file>, cached for good (the hash changes with it).
func (u *UI) ServeAsset(w http.ResponseWriter, r *http.Request) {
	hash, name, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, StaticPrefix), "/")
	body, found := u.assets[name]
	if !ok || hash != u.hash || !found {
		assetNotFound(w)
		return
	}
	hd := w.Header()
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	hd.Set("X-Content-Type-Options", "nosniff")
	if path.Ext(name) == ".js" {
		hd.Set("Content-Type", "text/javascript; charset=utf-8")
	} else {
		hd.Set("Content-Type", "text/css; charset=utf-8")
	}
	_, _ = w.Write(body)
}

// Frame is what every page's layout shows: the title, the signed-in wallet (none on the
// sign-in pages), the session's CSRF token for the script, and which tab is current.
type Frame struct {
	Title  string
	Wallet string
	CSRF   string
	Tab    string
	JS     string
	CSS    string
}

// Render answers a page with status code: never cached, never framed, the payment page's CSP.
func (u *UI) Render(w http.ResponseWriter, code int, name string, f Frame, data any) error {
	t, ok := u.pages[name]
	if !ok {
		return fmt.Errorf("dashboard: no page %q", name)
	}
	f.JS, f.CSS = u.Asset("dash.js"), u.Asset("dash.css")
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Security-Policy", page.CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with the
	// dashboard's own form POSTs, and the sign-in link's POST is refused unless its Origin names
	// this service (login CSRF, DESIGN 10); other sites still get no referrer.
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	w.WriteHeader(code)
	return t.Execute(w, struct {
		Frame
		Data any
	}{f, data})
}

// assetNotFound answers a missing asset in the API's error envelope, as every other unknown path
// is answered, rather than net/http's text/plain page.
func assetNotFound(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"error":"not_found","message":"Asset not found"}` + "\n"))
}
