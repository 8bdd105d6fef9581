// Package page serves the customer payment page and its static assets. Assets live under a
// content-hashed path, so they can be cached forever; the page itself is never cached.
package page

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var static embed.FS

// StaticPrefix is where assets are served: /_next/static/<content hash>/<file>.
const StaticPrefix = "/_next/static/"

// Assets are the page's static files under their content-hashed path.
type Assets struct {
	hash  string
	files map[string][]byte
	page  *template.Template
}

// Load reads the embedded assets and derives the content hash of their path.
func Load() (*Assets, error) {
	a := &Assets{files: map[string][]byte{}}
	h := sha256.New()
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		a.files[path.Base(p)] = b
		h.Write([]byte(p))
		h.Write(b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	a.hash = hex.EncodeToString(h.Sum(nil))[:16]
	a.page = template.Must(template.New("page").Parse(pageHTML))
	return a, nil
}

// Path is the URL of an asset.
func (a *Assets) Path(name string) string { return StaticPrefix + a.hash + "/" + name }

// ServeAsset answers /_next/static/<hash>/<file> with long-term caching and permissive CORS.
func (a *Assets) ServeAsset(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, StaticPrefix)
	hash, name, ok := strings.Cut(rest, "/")
	body, found := a.files[name]
	if !ok || hash != a.hash || !found {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS, PUT, DELETE")
	h.Set("Access-Control-Allow-Headers", "*")
	switch path.Ext(name) {
	case ".js":
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	case ".css":
		h.Set("Content-Type", "text/css; charset=utf-8")
	}
	_, _ = w.Write(body)
}

// ServePage answers the payment page of a receipt; the page is never cached.
func (a *Assets) ServePage(w http.ResponseWriter, receiptID string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = a.page.Execute(w, map[string]string{"ID": receiptID, "JS": a.Path("app.js"), "CSS": a.Path("app.css")})
}

const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay</title><link rel="stylesheet" href="{{.CSS}}"></head>
<body data-receipt="{{.ID}}">
<h1 id="brand">Payment</h1>
<table id="lines"></table>
<p>Pay with <select id="token"><option>USDC</option><option>ETH</option><option>USDT</option><option>cbBTC</option><option>cbXRP</option></select>
or scan with a mobile wallet: <a id="qr" href="#">open in wallet</a></p>
<p class="status">Status: <span id="status">…</span></p>
<script src="{{.JS}}"></script>
</body></html>`
