package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/apirecord"
	"github.com/payledger/payledger/transport/dashboard"
	"github.com/payledger/payledger/transport/transporttest"
)

const xssText = `<img src=x onerror=alert(1)>`

// dashEnv is the service as serve builds it (the dashboard mounted by web.Build); http changes
// the HTTP configuration first.
func dashEnv(t *testing.T, http func(*transport.Config)) *transporttest.Env {
	return transporttest.New(t, transporttest.Options{HTTP: http})
}

func TestMain(m *testing.M) { apirecord.Main(m) }

var metaCSRF = regexp.MustCompile(`<meta name="csrf-token" content="([0-9a-f]+)">`)

func TestDashboardRedirectsToSignInAndBack(t *testing.T) {
	e := dashEnv(t, nil)
	for _, cookies := range [][]*http.Cookie{nil, {{Name: transport.SessionCookie, Value: "forged.token.value"}}} {
		for _, path := range []string{"/dashboard", "/dashboard/receipts/rcpt_1?x=1", "/dashboard/settings"} {
			code, _, h := e.Get(path, cookies)
			want := "/dashboard/login?next=" + url.QueryEscape(path)
			if code != http.StatusSeeOther || h.Get("Location") != want {
				t.Errorf("GET %s without a session: %d %q, want 303 to %q", path, code, h.Get("Location"), want)
			}
		}
	}
	code, page, h := e.Get("/dashboard/login?next="+url.QueryEscape("/dashboard/receipts/rcpt_1?x=1"), nil)
	if code != 200 || !strings.Contains(page, `data-next="/dashboard/receipts/rcpt_1?x=1"`) || !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("sign-in page: %d %s\n%s", code, h.Get("Content-Security-Policy"), page)
	}
	for _, next := range []string{"https://evil.example/dashboard", "//evil.example", "/dashboard/../api/x", "/api/admin/keys", `/\evil.example`} {
		if _, page, _ := e.Get("/dashboard/login?next="+url.QueryEscape(next), nil); !strings.Contains(page, `data-next="/dashboard"`) {
			t.Errorf("next=%q is kept: the sign-in page must only return to the dashboard", next)
		}
	}
	m := e.Merchant(true)
	if code, page, _ := e.Get("/dashboard", m.Cookies); code != 200 || !strings.Contains(page, m.Wallet) {
		t.Errorf("signed in: %d", code)
	}
}

// The dashboard's forms go to the admin API with the session's CSRF token, which the page
// carries; without it (or with another) nothing changes.
func TestDashboardFormsNeedTheSessionsCSRFToken(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	_, page, _ := e.Get("/dashboard/settings", m.Cookies)
	got := metaCSRF.FindStringSubmatch(page)
	if got == nil || got[1] != m.CSRF {
		t.Fatalf("settings page carries CSRF %v, want the session's %s", got, m.CSRF)
	}
	before := e.Count("api_keys")
	for name, header := range map[string]map[string]string{"none": nil, "another": {transport.CSRFHeader: strings.Repeat("0", 64)}} {
		rec := e.Do(transporttest.Req{Method: http.MethodPost, Path: "/api/admin/keys", Body: `{"name":"x","scopes":["receipts:read"]}`, Header: header, Cookies: m.Cookies})
		if rec.Code != http.StatusForbidden {
			t.Errorf("key creation with %s CSRF token: %d %s, want 403", name, rec.Code, rec.Body)
		}
		rec = e.Do(transporttest.Req{Method: http.MethodPost, Path: "/api/auth/dev-link", Body: `{}`, Header: header, Cookies: m.Cookies})
		if rec.Code != http.StatusForbidden {
			t.Errorf("sign-in link with %s CSRF token: %d, want 403", name, rec.Code)
		}
	}
	if e.Count("api_keys") != before {
		t.Fatal("a refused form created a key")
	}
	rec := e.AdminCall(m.Cookies, got[1], http.MethodPost, "/api/admin/keys", `{"name":"x","scopes":["receipts:read"]}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("with the page's token: %d %s", rec.Code, rec.Body)
	}
}

func TestDashboardEscapesMerchantAndBuyerText(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/shop/config", `{"name":"`+strings.ReplaceAll(xssText, `"`, `\"`)+`"}`); rec.Code != 200 {
		t.Fatalf("shop: %d %s", rec.Code, rec.Body)
	}
	rec := e.Dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"`+xssText+`","priceUsd":5}],"totalUsd":5,"transactionId":"`+xssText+`"}`)
	if rec.Code != 201 {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	id := transporttest.Decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/admin/keys", `{"name":"`+xssText+`","scopes":["receipts:read"]}`); rec.Code != 201 {
		t.Fatalf("key: %d %s", rec.Code, rec.Body)
	}
	for _, path := range []string{"/dashboard", "/dashboard?q=" + url.QueryEscape(xssText), "/dashboard/receipts/" + id, "/dashboard/settings"} {
		code, page, _ := e.Get(path, m.Cookies)
		if code != 200 && code != 404 {
			t.Errorf("%s: %d", path, code)
		}
		if strings.Contains(page, "<img src=x") || !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s does not escape the merchant's or buyer's text:\n%s", path, page)
		}
	}
}

func TestDashboardReceiptsAndIsolation(t *testing.T) {
	e := dashEnv(t, nil)
	m, other := e.Merchant(true), e.Merchant(true)
	first := e.ReceiptFor(m, "10")
	rec := e.Dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4,"transactionId":"ord-77"}`)
	second := transporttest.Decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	foreign := e.ReceiptFor(other, "3")
	e.Pay(first, "evt_dash_1")

	_, page, _ := e.Get("/dashboard", m.Cookies)
	if i, j := strings.Index(page, `data-id="`+second+`"`), strings.Index(page, `data-id="`+first+`"`); i < 0 || j < 0 || i > j || strings.Contains(page, foreign) {
		t.Errorf("list: want %s before %s and not %s:\n%s", second, first, foreign, page)
	}
	_, page, _ = e.Get("/dashboard?status=paid", m.Cookies)
	if !strings.Contains(page, first) || strings.Contains(page, `data-id="`+second+`"`) || !strings.Contains(page, `href="/api/exports/receipts.csv?from=0&amp;status=paid"`) {
		t.Errorf("status filter paid:\n%s", page)
	}
	_, page, _ = e.Get("/dashboard?q=ord-77", m.Cookies)
	if !strings.Contains(page, `data-id="`+second+`"`) || strings.Contains(page, `data-id="`+first+`"`) {
		t.Errorf("search by transactionId:\n%s", page)
	}
	if code, page, _ := e.Get("/dashboard?q="+foreign, m.Cookies); code != 200 || strings.Contains(page, `data-id="`+foreign+`"`) {
		t.Errorf("search finds another merchant's receipt")
	}
	code, page, _ := e.Get("/dashboard/receipts/"+first, m.Cookies)
	if code != 200 || !strings.Contains(page, `data-valid="true"`) || !strings.Contains(page, `id="refund"`) ||
		strings.Index(page, `data-type="ReceiptGenerated"`) > strings.Index(page, `data-type="PaymentConfirmed"`) {
		t.Errorf("receipt page: %d\n%s", code, page)
	}
	if !strings.Contains(strings.ToLower(page), `id="tx-hash">0x`+strings.Repeat("a", 64)) || !strings.Contains(page, `id="buyer">0x`+strings.Repeat("b", 40)) {
		t.Errorf("receipt page lacks the payment's transaction hash or buyer wallet\n%s", page)
	}
	if code, page, _ := e.Get("/dashboard/receipts/"+foreign, m.Cookies); code != 404 || strings.Contains(page, "Order") {
		t.Errorf("another merchant's receipt: %d", code)
	}
}

func TestDashboardDevSignInLink(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(false)
	rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/auth/dev-link", `{}`)
	if rec.Code != 200 {
		t.Fatalf("dev link: %d %s", rec.Code, rec.Body)
	}
	link, _ := url.Parse(transporttest.Decode(t, rec)["url"].(string))
	token := link.Query().Get("token")
	if link.Path != "/dashboard/login/link" || len(token) != 64 {
		t.Fatalf("link %s", link)
	}
	if code, page, _ := e.Get(link.RequestURI(), nil); code != 200 || !strings.Contains(page, `value="`+token+`"`) {
		t.Fatalf("link page: %d %s", code, page)
	}
	use := func() *http.Response {
		r := e.Do(transporttest.Req{Method: http.MethodPost, Path: "/dashboard/login/link", Body: "token=" + token,
			Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://pay.example"}})
		return r.Result()
	}
	res := use()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard" {
		t.Fatalf("using the link: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if code, page, _ := e.Get("/dashboard", res.Cookies()); code != 200 || !strings.Contains(page, m.Wallet) {
		t.Errorf("after the link: %d", code)
	}
	if res := use(); res.StatusCode != http.StatusBadRequest || len(res.Cookies()) != 0 {
		t.Errorf("the link used twice: %d", res.StatusCode)
	}
	// Expired: a fresh link, used after its few minutes.
	token = strings.TrimPrefix(transporttest.Decode(t, e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/auth/dev-link", `{}`))["url"].(string), "https://pay.example/dashboard/login/link?token=")
	e.Clk.Advance(dashboard.DevLinkTTL)
	if res := use(); res.StatusCode != http.StatusBadRequest {
		t.Errorf("an expired link: %d", res.StatusCode)
	}

	prod := dashEnv(t, func(c *transport.Config) { c.Production = true })
	pm := prod.Merchant(false)
	if rec := prod.AdminCall(pm.Cookies, pm.CSRF, http.MethodPost, "/api/auth/dev-link", `{}`); rec.Code != http.StatusForbidden {
		t.Errorf("production issues a sign-in link: %d %s", rec.Code, rec.Body)
	}
}

// Keyset pages: 25 a page, newest first, the next page's link continues without a gap or repeat.
func TestDashboardPages(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	var ids []string
	for i := 0; i < dashboard.PageSize+2; i++ {
		ids = append(ids, e.ReceiptFor(m, "1"))
	}
	rowRE := regexp.MustCompile(`<tr data-id="([^"]+)">`)
	nextRE := regexp.MustCompile(`<a href="([^"]+)" id="next-page">`)
	var seen []string
	path := "/dashboard"
	for pages := 0; path != ""; pages++ {
		if pages > 2 {
			t.Fatal("more pages than receipts")
		}
		_, page, _ := e.Get(path, m.Cookies)
		for _, r := range rowRE.FindAllStringSubmatch(page, -1) {
			seen = append(seen, r[1])
		}
		path = ""
		if n := nextRE.FindStringSubmatch(page); n != nil {
			path = strings.ReplaceAll(n[1], "&amp;", "&")
		}
	}
	if len(seen) != len(ids) {
		t.Fatalf("%d rows over the pages, want %d", len(seen), len(ids))
	}
	for i, id := range seen {
		if id != ids[len(ids)-1-i] {
			t.Fatalf("row %d is %s, want %s (newest first)", i, id, ids[len(ids)-1-i])
		}
	}
	if code, page, _ := e.Get("/dashboard?cursor=not-a-cursor", m.Cookies); code != 200 || len(rowRE.FindAllString(page, -1)) != dashboard.PageSize {
		t.Errorf("a bad cursor: %d, want the first page", code)
	}
}

// Settings: without a split the deploy form (the wallet as the one recipient); with one, its
// contract and recipients.
func TestDashboardSettingsSplit(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(false)
	_, page, _ := e.Get("/dashboard/settings", m.Cookies)
	if !strings.Contains(page, `id="split-deploy" data-api="/api/split/deploy"`) || !strings.Contains(page, m.Wallet+" 10000</textarea>") {
		t.Errorf("no split: want the deploy form\n%s", page)
	}
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/split/deploy", `{"splitAddress":"0x`+strings.Repeat("c", 40)+`"}`); rec.Code != 200 {
		t.Fatalf("split: %d %s", rec.Code, rec.Body)
	}
	_, page, _ = e.Get("/dashboard/settings", m.Cookies)
	if strings.Contains(page, `id="split-deploy"`) || !strings.Contains(page, `<code id="split-address">0x`+strings.Repeat("c", 40)) {
		t.Errorf("split configured: want its address\n%s", page)
	}
}

var redeliverForm = regexp.MustCompile(`data-api="(/api/webhooks/endpoints/[0-9a-f-]{36}/deliveries/[0-9a-f-]{36}/redeliver)"`)

// The settings page lists the merchant's webhook endpoints (URL escaped, events, created), each
// one's deliveries with a redeliver form that reaches the existing route, and the create form;
// another merchant's endpoint is not there.
func TestDashboardSettingsWebhookEndpoints(t *testing.T) {
	e := dashEnv(t, func(c *transport.Config) { c.Production = false })
	m, other := e.Merchant(true), e.Merchant(true)
	if _, page, _ := e.Get("/dashboard/settings", m.Cookies); !strings.Contains(page, `id="no-endpoints"`) || !strings.Contains(page, `id="endpoint-create"`) {
		t.Fatalf("no endpoints yet: the section shows neither the empty list nor the form:\n%s", page)
	}
	hostile := "https://hooks.example/" + xssText
	e.CreateEndpoint(m, hostile, "*")
	e.CreateEndpoint(other, "https://other.example/secret-hook", "*")
	r := transporttest.NewReceiver(t, http.StatusInternalServerError) // the first delivery fails, the redelivery succeeds
	id, _ := e.CreateEndpoint(m, r.Srv.URL+"/hook", "webhook.test", "receipt.status_updated")
	_, page, _ := e.Get("/dashboard/settings", m.Cookies)
	if strings.Contains(page, "<img src=x") || !strings.Contains(page, "https://hooks.example/&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("the endpoint's URL is not escaped:\n%s", page)
	}
	if strings.Contains(page, "other.example") || strings.Contains(page, "whsec_") {
		t.Error("the page shows another merchant's endpoint or a secret")
	}
	for _, want := range []string{`<li class="endpoint" data-id="` + id + `">`, `<code class="url">` + r.Srv.URL + `/hook</code>`,
		"webhook.test, receipt.status_updated", "all events", `data-api="/api/webhooks/endpoints/` + id + `/test"`,
		`data-api="/api/webhooks/endpoints/` + id + `" data-method="DELETE"`} {
		if !strings.Contains(page, want) {
			t.Errorf("settings page lacks %s", want)
		}
	}
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/webhooks/endpoints/"+id+"/test", ""); rec.Code != http.StatusAccepted {
		t.Fatalf("test event: %d %s", rec.Code, rec.Body)
	}
	var form []string
	transporttest.WaitUntil(t, "the failed test delivery on the page", 10*time.Second, func() bool {
		_, page, _ = e.Get("/dashboard/settings", m.Cookies)
		form = redeliverForm.FindStringSubmatch(page)
		return form != nil && strings.Contains(page, `<tr data-ok="false" data-type="webhook.test">`)
	})
	if !strings.Contains(page, "HTTP 500") {
		t.Errorf("the failed delivery's outcome is not shown:\n%s", page)
	}
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, form[1], ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"ok":true`) {
		t.Fatalf("the page's redeliver form %s: %d %s", form[1], rec.Code, rec.Body)
	}
	if _, page, _ = e.Get("/dashboard/settings", m.Cookies); !strings.Contains(page, `<tr data-ok="true" data-type="webhook.test">`) || !strings.Contains(page, "HTTP 200") {
		t.Errorf("the redelivery is not shown:\n%s", page)
	}
}

// A receipt whose status may still change carries the payment page's event stream for dash.js
// to follow; once the stream would end at once (refund requested), the page opens none.
func TestDashboardReceiptPageFollowsItsStatus(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "10")
	live := `data-live="/api/portal/` + id + `/events"`
	if _, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies); !strings.Contains(page, live) || !strings.Contains(page, `id="live-note"`) {
		t.Fatalf("an unpaid receipt's page does not follow its status:\n%s", page)
	}
	e.Pay(id, "evt_live")
	transporttest.WaitUntil(t, "paid", 10*time.Second, func() bool {
		_, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies)
		return strings.Contains(page, `data-status="paid"`)
	})
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+id+`","reason":"test"}`); rec.Code/100 != 2 {
		t.Fatalf("refund: %d %s", rec.Code, rec.Body)
	}
	transporttest.WaitUntil(t, "refund requested", 10*time.Second, func() bool {
		_, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies)
		return strings.Contains(page, `data-status="refund_requested"`) && !strings.Contains(page, "data-live=")
	})
	// The domain refuses a second request without a hash: the page offers no form that can only fail.
	if _, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies); strings.Contains(page, `id="refund"`) {
		t.Fatalf("a refund_requested receipt shows the refund form:\n%s", page)
	}
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+id+`","reason":"again"}`); rec.Code/100 == 2 {
		t.Fatalf("a second request without a hash: %d %s", rec.Code, rec.Body)
	}
}

// The receipts list's stream: the signed-in merchant's receipts among ids, their status at once
// and again when it changes; another merchant's receipt is left out; bad ids and no session are
// refused before any stream.
func TestDashboardListEventsStream(t *testing.T) {
	e := dashEnv(t, nil)
	m, other := e.Merchant(true), e.Merchant(true)
	mine, foreign := e.ReceiptFor(m, "10"), e.ReceiptFor(other, "3")
	srv := httptest.NewServer(e.Srv)
	defer srv.Close()
	get := func(ctx context.Context, query string, cookies []*http.Cookie) *http.Response {
		hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/dashboard/events?"+query, nil)
		for _, c := range cookies {
			hr.AddCookie(c)
		}
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, c := range []struct {
		query   string
		cookies []*http.Cookie
		want    int
	}{{"ids=" + mine, nil, 401}, {"ids=", m.Cookies, 400}, {"ids=" + url.QueryEscape("a,<b>"), m.Cookies, 400},
		{"ids=" + strings.Repeat("a,", 50) + "b", m.Cookies, 400}} {
		if resp := get(context.Background(), c.query, c.cookies); resp.StatusCode != c.want {
			t.Errorf("%s (session %v): %d, want %d", c.query, c.cookies != nil, resp.StatusCode, c.want)
		} else {
			resp.Body.Close()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp := get(ctx, "ids="+url.QueryEscape(foreign+","+mine), m.Cookies)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	lines := bufio.NewScanner(resp.Body)
	next := func() dashboard.Status {
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				var ev dashboard.Status
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatalf("data %q: %v", data, err)
				}
				return ev
			}
		}
		t.Fatalf("stream ended: %v", lines.Err())
		return dashboard.Status{}
	}
	if ev := next(); ev != (dashboard.Status{ReceiptID: mine, Status: "generated"}) {
		t.Fatalf("first event %+v (another merchant's receipt must not show)", ev)
	}
	e.Pay(mine, "evt_list")
	for ev := next(); ev.Status != "paid"; ev = next() { // pending may come first, as on the way
		if ev != (dashboard.Status{ReceiptID: mine, Status: "pending"}) {
			t.Fatalf("after payment %+v", ev)
		}
	}
}
