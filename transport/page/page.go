// Package page serves the customer payment page and its static assets. Assets live under a
// content-hashed path, so they can be cached forever; the page itself is never cached.
//
// The page is rendered on the server with html/template (every merchant- or buyer-supplied text
// is escaped there); the script (app.js) adds the currency choice, the wallet and card buttons
// and the live status. No script is inline: the Content-Security-Policy's script-src is 'self',
// and the data the script needs travels in a <script type="application/json"> block, which the
// browser never executes.
package page

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
)

//go:embed static
var static embed.FS

// StaticPrefix is where assets are served: /_next/static/<content hash>/<file>.
const StaticPrefix = "/_next/static/"

// CSP is the Content-Security-Policy of the page: scripts and styles only from the service
// itself (no inline script, no inline style attribute), images from the service, data URIs
// (line thumbnails) and https (the merchant's logo), requests only to the service.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Assets are the page's static files under their content-hashed path.
type Assets struct {
	hash     string
	files    map[string][]byte
	page     *template.Template
	notFound *template.Template
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
	a.notFound = template.Must(template.New("404").Parse(notFoundHTML))
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
		assetNotFound(w)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS, PUT, DELETE")
	h.Set("Access-Control-Allow-Headers", "*")
	h.Set("X-Content-Type-Options", "nosniff")
	switch path.Ext(name) {
	case ".js":
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	case ".css":
		h.Set("Content-Type", "text/css; charset=utf-8")
	case ".svg":
		h.Set("Content-Type", "image/svg+xml")
	}
	_, _ = w.Write(body)
}

// Line is one line of the itemized receipt as shown.
type Line struct {
	Label  string
	Qty    int64 // 0 on the tax and fee lines
	Unit   string
	Amount string
	Kind   string       // item | tax | fee
	Thumb  template.URL // data:image/ URI (item lines), checked by the caller
}

// Theme is the merchant's branding (colours already validated as #hex by the shop config).
type Theme struct {
	Primary, Secondary, Text, Accent string
	LogoURL                          string // https only
}

// Failure is the failure catalog's text for a failed receipt.
type Failure struct {
	Code        string `json:"code"`
	Description string `json:"description"`
	Action      string `json:"action"`
}

// Payment is the verified payment of a settled receipt.
type Payment struct {
	TransactionHash string `json:"transactionHash,omitempty"`
	Token           string `json:"token,omitempty"`
	BuyerWallet     string `json:"buyerWallet,omitempty"`
	VerifiedBy      string `json:"verifiedBy,omitempty"`
}

// View is everything the page shows of one receipt.
type View struct {
	ReceiptID string
	BrandName string
	Theme     Theme
	Lines     []Line
	Total     string
	Currency  string
	Status    string
	Settled   bool // paid, reconciled, refund requested or refunded: the receipt view, no payment controls
	// InProgress (receipt.State.PaymentInProgress: ach_pending, or pending with a payment under
	// way): a payment is being confirmed; the controls are hidden so that the customer does not
	// pay twice, and come back if it fails or ends short (a reopened ACH payment).
	InProgress bool
	Payment    *Payment
	Failure    *Failure
	// AmountReceived of AmountRequired (decimal strings, in AmountToken, as TokenAmount writes
	// them) once a transfer to the deposit address was seen ("" before); AmountDue is what an
	// underpaid receipt still waits for ("5.00 USDC received, 7.31 USDC still due").
	AmountReceived, AmountRequired, AmountDue, AmountToken string
	// Underpaid: confirmed transfers brought less than required; the controls stay, for the rest.
	Underpaid bool
	ExpiresAt int64 // Unix ms: the end of the payment window (0: none); the script counts down
	// WindowEnded: the payment window is over and the receipt unpaid: nothing can be started (the
	// quote, the request and the card start refuse it), so there are no payment controls, and
	// WindowNote says what becomes of a late payment.
	WindowEnded bool
	WindowNote  string
	Tokens      []string // the currency choice
	Token       string   // the one selected first
	WalletOK    bool     // a chain is configured: QR and wallet button
	CardOK      bool     // a card/bank processor is configured: the card button
	// ChainGone: the deposit address is on a development chain the service no longer follows
	// (issue 40): nothing sent there arrives, so the payment controls are hidden.
	ChainGone bool
	// Data is what the script needs, as JSON in a non-executed script block.
	Data any
}

// StatusLabel is the status as the customer reads it; a payment that arrived short is
// "Partly paid", not "pending", so that the customer knows to send the rest.
func (v View) StatusLabel() string {
	if v.Underpaid && !v.Settled {
		return UnderpaidLabel
	}
	return StatusLabel(v.Status)
}

// CardLabel is the card/bank button's text; CardRestLabel its text while the receipt is
// underpaid, when the session asks for what is still due, not the whole total again.
const (
	CardLabel     = "Pay with card or bank"
	CardRestLabel = "Pay the rest by card or bank"
)

// CardButton is the card/bank button's text for v.
func (v View) CardButton() string {
	if v.Underpaid {
		return CardRestLabel
	}
	return CardLabel
}

// UnderpaidLabel is the status label of a receipt whose confirmed transfers brought less than
// it asks for.
const UnderpaidLabel = "Partly paid"

// StatusLabel is a status as the customer reads it.
func StatusLabel(s string) string {
	switch s {
	case "generated":
		return "Awaiting payment"
	case "pending":
		return "Payment pending"
	case "ach_pending":
		return "Bank payment pending"
	case "paid":
		return "Paid"
	case "reconciled":
		return "Paid and settled"
	case "failed":
		return "Payment failed"
	case "refund_requested":
		return "Refund requested"
	case "refunded":
		return "Refunded"
	}
	return s
}

// Symbol is the currency sign of the receipt's currency.
func (v View) Symbol() string {
	if v.Currency == "EUR" {
		return "€"
	}
	return "$"
}

type pageData struct {
	View
	JS, CSS string
}

// setHeaders are the headers of every HTML answer: never cached, never framed, the CSP.
func setHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

// ServePage answers the payment page of a receipt; the page is never cached.
func (a *Assets) ServePage(w http.ResponseWriter, v View) error {
	setHeaders(w)
	return a.page.Execute(w, pageData{View: v, JS: a.Path("app.js"), CSS: a.Path("app.css")})
}

// ServeNotFound answers 404 with a page saying the receipt does not exist. The id is shown only
// when it has the shape of one (ShownID): the page is on the service's own domain, and any text
// put in a link's path was shown on it as the service's words ("There is no receipt
// Your-card-was-charged-twice.Call-+1-555-0100").
func (a *Assets) ServeNotFound(w http.ResponseWriter, receiptID string) error {
	setHeaders(w)
	w.WriteHeader(http.StatusNotFound)
	return a.notFound.Execute(w, map[string]string{"ID": ShownID(receiptID), "CSS": a.Path("app.css")})
}

// ShownID is id when it has the shape of a receipt id (a generated rcpt_ id, or a merchant's own
// in its namespace: m + 32 hex + _ since stop 70, m + 12 hex + _ before), else "".
func ShownID(id string) string {
	if !receiptIDShape.MatchString(id) {
		return ""
	}
	return id
}

var receiptIDShape = regexp.MustCompile(`^(rcpt_[0-9A-Za-z]{1,40}|m([0-9a-f]{12}|[0-9a-f]{32})_[A-Za-z0-9_-]{1,64})$`)

const notFoundHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Receipt not found</title><link rel="stylesheet" href="{{.CSS}}"></head>
<body><main class="card notfound">
<h1>Receipt not found</h1>
<p>There is no receipt{{if .ID}} <code>{{.ID}}</code>{{else}} at this address{{end}}. Check the payment link you were given, or ask the merchant for a new one.</p>
</main></body></html>`

const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay {{.BrandName}}</title><link rel="stylesheet" href="{{.CSS}}"></head>
<body data-receipt="{{.ReceiptID}}" data-primary="{{.Theme.Primary}}" data-secondary="{{.Theme.Secondary}}" data-text="{{.Theme.Text}}" data-accent="{{.Theme.Accent}}">
<main class="card">
<header class="brand">
{{if .Theme.LogoURL}}<img id="logo" src="{{.Theme.LogoURL}}" alt="{{.BrandName}} logo" width="48" height="48">{{end}}
<h1 id="brand">{{.BrandName}}</h1>
</header>

<section aria-labelledby="receipt-title">
<h2 id="receipt-title">Receipt <span class="muted" id="receipt-id">{{.ReceiptID}}</span></h2>
<table id="lines">
<caption class="sr-only">Itemized receipt</caption>
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Amount</th></tr></thead>
<tbody>
{{range .Lines}}<tr class="line {{.Kind}}"><td>{{if .Thumb}}<img class="thumb" src="{{.Thumb}}" alt="" width="24" height="24">{{end}}<span class="label">{{.Label}}</span>{{if .Qty}} <span class="qty">× {{.Qty}}</span>{{end}}</td><td class="num">{{$.Symbol}}{{.Amount}}</td></tr>
{{end}}</tbody>
<tfoot><tr class="total"><th scope="row">Total</th><td class="num" id="total">{{.Symbol}}{{.Total}} {{.Currency}}</td></tr></tfoot>
</table>
</section>

<section class="status" aria-labelledby="status-title">
<h2 id="status-title" class="sr-only">Payment status</h2>
<p>Status: <strong id="status" data-status="{{.Status}}" aria-live="polite">{{.StatusLabel}}</strong></p>
<div id="failure" role="alert"{{if not .Failure}} hidden{{end}}>{{if .Failure}}<p id="failure-description">{{.Failure.Description}}</p><p id="failure-action">{{.Failure.Action}}</p>{{end}}</div>
</section>

<section id="receipt-view" aria-labelledby="paid-title"{{if not .Settled}} hidden{{end}}>
<h2 id="paid-title">Payment received</h2>
<dl>
<dt>Amount</dt><dd>{{.Symbol}}{{.Total}} {{.Currency}}</dd>
<dt>Paid with</dt><dd id="paid-token">{{if .Payment}}{{.Payment.Token}}{{end}}</dd>
<dt>Transaction</dt><dd><code id="paid-tx">{{if .Payment}}{{.Payment.TransactionHash}}{{end}}</code></dd>
</dl>
</section>

<p id="in-progress"{{if or (not .InProgress) .Underpaid .WindowEnded}} hidden{{end}}>A payment is being confirmed. This page updates by itself.</p>
<p id="received"{{if not .AmountReceived}} hidden{{end}}><strong id="amount-received">{{.AmountReceived}}</strong> <span class="amount-token">{{.AmountToken}}</span> received<span id="due"{{if not .Underpaid}} hidden{{end}}>, <strong id="amount-due">{{.AmountDue}}</strong> <span class="amount-token">{{.AmountToken}}</span> still due</span> <span class="of">(of <span id="amount-required">{{.AmountRequired}}</span> <span class="amount-token">{{.AmountToken}}</span>)</span></p>
<p id="short"{{if not .Underpaid}} hidden{{end}}>The payment arrived short. Send what is still due to the same address; this page updates by itself.</p>
<p id="time-left" hidden></p>
<p id="window-ended" role="status"{{if not .WindowNote}} hidden{{end}}>{{.WindowNote}}</p>
{{if .ChainGone}}<p id="chain-gone" role="alert">This receipt's deposit address is on a development chain that no longer exists: nothing sent to it can arrive. Ask the merchant for a new receipt.</p>{{end}}
{{if and (not .Settled) (not .ChainGone) (not .WindowEnded)}}<section id="pay" aria-labelledby="pay-title"{{if and .InProgress (not .Underpaid)}} hidden{{end}}>
<h2 id="pay-title">Pay</h2>
{{if .Tokens}}<p class="field"><label for="token">Currency</label>
<select id="token" name="token">{{range .Tokens}}<option value="{{.}}"{{if eq . $.Token}} selected{{end}}>{{.}}</option>{{end}}</select></p>
<div id="quote" aria-live="polite">
<p class="amount">Amount: <strong id="amount">…</strong> <span id="amount-token">{{.Token}}</span>
<button type="button" class="copy" id="copy-amount" data-copy="amount" aria-label="Copy amount">Copy</button></p>
{{if .WalletOK}}<p id="instructions">Send exactly <strong id="instr-amount">…</strong> <span id="instr-token">{{.Token}}</span> on chain <span id="instr-chain">…</span> to this address:</p>
<p class="address"><code id="address">…</code>
<button type="button" class="copy" id="copy-address" data-copy="address" aria-label="Copy address">Copy</button></p>
<figure class="qr"><img id="qr" alt="QR code of the payment link for a mobile wallet" width="232" height="232" src="data:,">
<figcaption>Scan with a mobile wallet, or open <a id="uri" href="#">the payment link</a>
<button type="button" class="copy" id="copy-uri" data-copy="uri" aria-label="Copy payment link">Copy link</button></figcaption></figure>{{end}}
<p id="quote-error" class="error" role="alert" hidden></p>
</div>{{end}}
<div class="actions">
{{if .WalletOK}}<button type="button" id="pay-wallet" class="primary">Pay with wallet</button>{{end}}
{{if .CardOK}}<button type="button" id="pay-card">{{.CardButton}}</button>{{end}}
</div>
<p id="wallet-error" class="error" role="alert" hidden></p>
<p id="copied" class="sr-only" aria-live="polite"></p>
</section>{{end}}
</main>
<script type="application/json" id="page-data">{{.Data}}</script>
<script src="{{.JS}}"></script>
</body></html>`

// assetNotFound answers a missing asset in the API's error envelope, as every other unknown path
// is answered, rather than net/http's text/plain page.
func assetNotFound(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"error":"not_found","message":"Asset not found"}` + "\n"))
}
