package transport

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
)

const xssText = `<img src=x onerror=alert(1)>`

// dashEnv is the test server with the dashboard's search (as serve wires it).
func dashEnv(t *testing.T, mutate func(*testDeps)) *env {
	return newEnv(t, func(d *testDeps) {
		if mutate != nil {
			mutate(d)
		}
	})
}

func (e *env) get(path string, cookies []*http.Cookie) (int, string, http.Header) {
	e.t.Helper()
	rec := e.do(req{method: http.MethodGet, path: path, cookies: cookies})
	return rec.Code, rec.Body.String(), rec.Header()
}

var metaCSRF = regexp.MustCompile(`<meta name="csrf-token" content="([0-9a-f]+)">`)

func TestDashboardRedirectsToSignInAndBack(t *testing.T) {
	e := dashEnv(t, nil)
	for _, cookies := range [][]*http.Cookie{nil, {{Name: SessionCookie, Value: "forged.token.value"}}} {
		for _, path := range []string{"/dashboard", "/dashboard/receipts/rcpt_1?x=1", "/dashboard/settings"} {
			code, _, h := e.get(path, cookies)
			want := "/dashboard/login?next=" + url.QueryEscape(path)
			if code != http.StatusSeeOther || h.Get("Location") != want {
				t.Errorf("GET %s without a session: %d %q, want 303 to %q", path, code, h.Get("Location"), want)
			}
		}
	}
	code, page, h := e.get("/dashboard/login?next="+url.QueryEscape("/dashboard/receipts/rcpt_1?x=1"), nil)
	if code != 200 || !strings.Contains(page, `data-next="/dashboard/receipts/rcpt_1?x=1"`) || !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("sign-in page: %d %s\n%s", code, h.Get("Content-Security-Policy"), page)
	}
	for _, next := range []string{"https://evil.example/dashboard", "//evil.example", "/dashboard/../api/x", "/api/admin/keys", `/\evil.example`} {
		if _, page, _ := e.get("/dashboard/login?next="+url.QueryEscape(next), nil); !strings.Contains(page, `data-next="/dashboard"`) {
			t.Errorf("next=%q is kept: the sign-in page must only return to the dashboard", next)
		}
	}
	m := e.merchant(true)
	if code, page, _ := e.get("/dashboard", m.cookies); code != 200 || !strings.Contains(page, m.wallet) {
		t.Errorf("signed in: %d", code)
	}
}

// The dashboard's forms go to the admin API with the session's CSRF token, which the page
// carries; without it (or with another) nothing changes.
func TestDashboardFormsNeedTheSessionsCSRFToken(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.merchant(true)
	_, page, _ := e.get("/dashboard/settings", m.cookies)
	got := metaCSRF.FindStringSubmatch(page)
	if got == nil || got[1] != m.csrf {
		t.Fatalf("settings page carries CSRF %v, want the session's %s", got, m.csrf)
	}
	before := e.count("api_keys")
	for name, header := range map[string]map[string]string{"none": nil, "another": {CSRFHeader: strings.Repeat("0", 64)}} {
		rec := e.do(req{method: http.MethodPost, path: "/api/admin/keys", body: `{"name":"x","scopes":["receipts:read"]}`, header: header, cookies: m.cookies})
		if rec.Code != http.StatusForbidden {
			t.Errorf("key creation with %s CSRF token: %d %s, want 403", name, rec.Code, rec.Body)
		}
		rec = e.do(req{method: http.MethodPost, path: "/api/auth/dev-link", body: `{}`, header: header, cookies: m.cookies})
		if rec.Code != http.StatusForbidden {
			t.Errorf("sign-in link with %s CSRF token: %d, want 403", name, rec.Code)
		}
	}
	if e.count("api_keys") != before {
		t.Fatal("a refused form created a key")
	}
	rec := e.adminCall(m.cookies, got[1], http.MethodPost, "/api/admin/keys", `{"name":"x","scopes":["receipts:read"]}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("with the page's token: %d %s", rec.Code, rec.Body)
	}
}

func TestDashboardEscapesMerchantAndBuyerText(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.merchant(true)
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", `{"name":"`+strings.ReplaceAll(xssText, `"`, `\"`)+`"}`); rec.Code != 200 {
		t.Fatalf("shop: %d %s", rec.Code, rec.Body)
	}
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"`+xssText+`","priceUsd":5}],"totalUsd":5,"transactionId":"`+xssText+`"}`)
	if rec.Code != 201 {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/admin/keys", `{"name":"`+xssText+`","scopes":["receipts:read"]}`); rec.Code != 201 {
		t.Fatalf("key: %d %s", rec.Code, rec.Body)
	}
	for _, path := range []string{"/dashboard", "/dashboard?q=" + url.QueryEscape(xssText), "/dashboard/receipts/" + id, "/dashboard/settings"} {
		code, page, _ := e.get(path, m.cookies)
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
	m, other := e.merchant(true), e.merchant(true)
	first := e.receiptFor(m, "10")
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4,"transactionId":"ord-77"}`)
	second := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	foreign := e.receiptFor(other, "3")
	e.pay(first, "evt_dash_1")

	_, page, _ := e.get("/dashboard", m.cookies)
	if i, j := strings.Index(page, `data-id="`+second+`"`), strings.Index(page, `data-id="`+first+`"`); i < 0 || j < 0 || i > j || strings.Contains(page, foreign) {
		t.Errorf("list: want %s before %s and not %s:\n%s", second, first, foreign, page)
	}
	_, page, _ = e.get("/dashboard?status=paid", m.cookies)
	if !strings.Contains(page, first) || strings.Contains(page, `data-id="`+second+`"`) || !strings.Contains(page, `href="/api/exports/receipts.csv?status=paid"`) {
		t.Errorf("status filter paid:\n%s", page)
	}
	_, page, _ = e.get("/dashboard?q=ord-77", m.cookies)
	if !strings.Contains(page, `data-id="`+second+`"`) || strings.Contains(page, `data-id="`+first+`"`) {
		t.Errorf("search by transactionId:\n%s", page)
	}
	if code, page, _ := e.get("/dashboard?q="+foreign, m.cookies); code != 200 || strings.Contains(page, `data-id="`+foreign+`"`) {
		t.Errorf("search finds another merchant's receipt")
	}
	code, page, _ := e.get("/dashboard/receipts/"+first, m.cookies)
	if code != 200 || !strings.Contains(page, `data-valid="true"`) || !strings.Contains(page, `id="refund"`) ||
		strings.Index(page, `data-type="ReceiptGenerated"`) > strings.Index(page, `data-type="PaymentConfirmed"`) {
		t.Errorf("receipt page: %d\n%s", code, page)
	}
	if !strings.Contains(strings.ToLower(page), `id="tx-hash">0x`+strings.Repeat("a", 64)) || !strings.Contains(page, `id="buyer">0x`+strings.Repeat("b", 40)) {
		t.Errorf("receipt page lacks the payment's transaction hash or buyer wallet\n%s", page)
	}
	if code, page, _ := e.get("/dashboard/receipts/"+foreign, m.cookies); code != 404 || strings.Contains(page, "Order") {
		t.Errorf("another merchant's receipt: %d", code)
	}
}

func TestDashboardDevSignInLink(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.merchant(false)
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/auth/dev-link", `{}`)
	if rec.Code != 200 {
		t.Fatalf("dev link: %d %s", rec.Code, rec.Body)
	}
	link, _ := url.Parse(decode(t, rec)["url"].(string))
	token := link.Query().Get("token")
	if link.Path != "/dashboard/login/link" || len(token) != 64 {
		t.Fatalf("link %s", link)
	}
	if code, page, _ := e.get(link.RequestURI(), nil); code != 200 || !strings.Contains(page, `value="`+token+`"`) {
		t.Fatalf("link page: %d %s", code, page)
	}
	use := func() *http.Response {
		r := e.do(req{method: http.MethodPost, path: "/dashboard/login/link", body: "token=" + token,
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
		return r.Result()
	}
	res := use()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard" {
		t.Fatalf("using the link: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if code, page, _ := e.get("/dashboard", res.Cookies()); code != 200 || !strings.Contains(page, m.wallet) {
		t.Errorf("after the link: %d", code)
	}
	if res := use(); res.StatusCode != http.StatusBadRequest || len(res.Cookies()) != 0 {
		t.Errorf("the link used twice: %d", res.StatusCode)
	}
	// Expired: a fresh link, used after its few minutes.
	token = strings.TrimPrefix(decode(t, e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/auth/dev-link", `{}`))["url"].(string), "https://pay.example/dashboard/login/link?token=")
	e.clk.Advance(devLinkTTL)
	if res := use(); res.StatusCode != http.StatusBadRequest {
		t.Errorf("an expired link: %d", res.StatusCode)
	}

	prod := dashEnv(t, func(d *testDeps) { d.Config.Production = true })
	pm := prod.merchant(false)
	if rec := prod.adminCall(pm.cookies, pm.csrf, http.MethodPost, "/api/auth/dev-link", `{}`); rec.Code != http.StatusForbidden {
		t.Errorf("production issues a sign-in link: %d %s", rec.Code, rec.Body)
	}
}

// Keyset pages: 25 a page, newest first, the next page's link continues without a gap or repeat.
func TestDashboardPages(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.merchant(true)
	var ids []string
	for i := 0; i < dashPageSize+2; i++ {
		ids = append(ids, e.receiptFor(m, "1"))
	}
	rowRE := regexp.MustCompile(`<tr data-id="([^"]+)">`)
	nextRE := regexp.MustCompile(`<a href="([^"]+)" id="next-page">`)
	var seen []string
	path := "/dashboard"
	for pages := 0; path != ""; pages++ {
		if pages > 2 {
			t.Fatal("more pages than receipts")
		}
		_, page, _ := e.get(path, m.cookies)
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
	if code, page, _ := e.get("/dashboard?cursor=not-a-cursor", m.cookies); code != 200 || len(rowRE.FindAllString(page, -1)) != dashPageSize {
		t.Errorf("a bad cursor: %d, want the first page", code)
	}
}

// Settings: without a split the deploy form (the wallet as the one recipient); with one, its
// contract and recipients.
func TestDashboardSettingsSplit(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.merchant(false)
	_, page, _ := e.get("/dashboard/settings", m.cookies)
	if !strings.Contains(page, `id="split-deploy" data-api="/api/split/deploy"`) || !strings.Contains(page, m.wallet+" 10000</textarea>") {
		t.Errorf("no split: want the deploy form\n%s", page)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/split/deploy", `{"splitAddress":"0x`+strings.Repeat("c", 40)+`"}`); rec.Code != 200 {
		t.Fatalf("split: %d %s", rec.Code, rec.Body)
	}
	_, page, _ = e.get("/dashboard/settings", m.cookies)
	if strings.Contains(page, `id="split-deploy"`) || !strings.Contains(page, `<code id="split-address">0x`+strings.Repeat("c", 40)) {
		t.Errorf("split configured: want its address\n%s", page)
	}
}

var redeliverForm = regexp.MustCompile(`data-api="(/api/webhooks/endpoints/[0-9a-f-]{36}/deliveries/[0-9a-f-]{36}/redeliver)"`)

// The settings page lists the merchant's webhook endpoints (URL escaped, events, created), each
// one's deliveries with a redeliver form that reaches the existing route, and the create form;
// another merchant's endpoint is not there.
func TestDashboardSettingsWebhookEndpoints(t *testing.T) {
	e := dashEnv(t, func(d *testDeps) { d.Config.Production = false })
	m, other := e.merchant(true), e.merchant(true)
	if _, page, _ := e.get("/dashboard/settings", m.cookies); !strings.Contains(page, `id="no-endpoints"`) || !strings.Contains(page, `id="endpoint-create"`) {
		t.Fatalf("no endpoints yet: the section shows neither the empty list nor the form:\n%s", page)
	}
	hostile := "https://hooks.example/" + xssText
	e.createEndpoint(m, hostile, "*")
	e.createEndpoint(other, "https://other.example/secret-hook", "*")
	r := newReceiver(t, http.StatusInternalServerError) // the first delivery fails, the redelivery succeeds
	id, _ := e.createEndpoint(m, r.srv.URL+"/hook", "webhook.test", "receipt.status_updated")
	_, page, _ := e.get("/dashboard/settings", m.cookies)
	if strings.Contains(page, "<img src=x") || !strings.Contains(page, "https://hooks.example/&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("the endpoint's URL is not escaped:\n%s", page)
	}
	if strings.Contains(page, "other.example") || strings.Contains(page, "whsec_") {
		t.Error("the page shows another merchant's endpoint or a secret")
	}
	for _, want := range []string{`<li class="endpoint" data-id="` + id + `">`, `<code class="url">` + r.srv.URL + `/hook</code>`,
		"webhook.test, receipt.status_updated", "all events", `data-api="/api/webhooks/endpoints/` + id + `/test"`,
		`data-api="/api/webhooks/endpoints/` + id + `" data-method="DELETE"`} {
		if !strings.Contains(page, want) {
			t.Errorf("settings page lacks %s", want)
		}
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+id+"/test", ""); rec.Code != http.StatusAccepted {
		t.Fatalf("test event: %d %s", rec.Code, rec.Body)
	}
	var form []string
	waitUntil(t, "the failed test delivery on the page", 10*time.Second, func() bool {
		_, page, _ = e.get("/dashboard/settings", m.cookies)
		form = redeliverForm.FindStringSubmatch(page)
		return form != nil && strings.Contains(page, `<tr data-ok="false" data-type="webhook.test">`)
	})
	if !strings.Contains(page, "HTTP 500") {
		t.Errorf("the failed delivery's outcome is not shown:\n%s", page)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, form[1], ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"ok":true`) {
		t.Fatalf("the page's redeliver form %s: %d %s", form[1], rec.Code, rec.Body)
	}
	if _, page, _ = e.get("/dashboard/settings", m.cookies); !strings.Contains(page, `<tr data-ok="true" data-type="webhook.test">`) || !strings.Contains(page, "HTTP 200") {
		t.Errorf("the redelivery is not shown:\n%s", page)
	}
}

// A receipt whose status may still change carries the payment page's event stream for dash.js
// to follow; once the stream would end at once (refund requested), the page opens none.
func TestDashboardReceiptPageFollowsItsStatus(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	live := `data-live="/api/portal/` + id + `/events"`
	if _, page, _ := e.get("/dashboard/receipts/"+id, m.cookies); !strings.Contains(page, live) || !strings.Contains(page, `id="live-note"`) {
		t.Fatalf("an unpaid receipt's page does not follow its status:\n%s", page)
	}
	e.pay(id, "evt_live")
	waitUntil(t, "paid", 10*time.Second, func() bool {
		_, page, _ := e.get("/dashboard/receipts/"+id, m.cookies)
		return strings.Contains(page, `data-status="paid"`)
	})
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+id+`","reason":"test"}`); rec.Code/100 != 2 {
		t.Fatalf("refund: %d %s", rec.Code, rec.Body)
	}
	waitUntil(t, "refund requested", 10*time.Second, func() bool {
		_, page, _ := e.get("/dashboard/receipts/"+id, m.cookies)
		return strings.Contains(page, `data-status="refund_requested"`) && !strings.Contains(page, "data-live=")
	})
	// The domain refuses a second request without a hash: the page offers no form that can only fail.
	if _, page, _ := e.get("/dashboard/receipts/"+id, m.cookies); strings.Contains(page, `id="refund"`) {
		t.Fatalf("a refund_requested receipt shows the refund form:\n%s", page)
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+id+`","reason":"again"}`); rec.Code/100 == 2 {
		t.Fatalf("a second request without a hash: %d %s", rec.Code, rec.Body)
	}
}

// The receipts list's stream: the signed-in merchant's receipts among ids, their status at once
// and again when it changes; another merchant's receipt is left out; bad ids and no session are
// refused before any stream.
func TestDashboardListEventsStream(t *testing.T) {
	e := dashEnv(t, nil)
	m, other := e.merchant(true), e.merchant(true)
	mine, foreign := e.receiptFor(m, "10"), e.receiptFor(other, "3")
	srv := httptest.NewServer(e.srv)
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
	}{{"ids=" + mine, nil, 401}, {"ids=", m.cookies, 400}, {"ids=" + url.QueryEscape("a,<b>"), m.cookies, 400},
		{"ids=" + strings.Repeat("a,", 50) + "b", m.cookies, 400}} {
		if resp := get(context.Background(), c.query, c.cookies); resp.StatusCode != c.want {
			t.Errorf("%s (session %v): %d, want %d", c.query, c.cookies != nil, resp.StatusCode, c.want)
		} else {
			resp.Body.Close()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp := get(ctx, "ids="+url.QueryEscape(foreign+","+mine), m.cookies)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	lines := bufio.NewScanner(resp.Body)
	next := func() dashStatus {
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				var ev dashStatus
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatalf("data %q: %v", data, err)
				}
				return ev
			}
		}
		t.Fatalf("stream ended: %v", lines.Err())
		return dashStatus{}
	}
	if ev := next(); ev != (dashStatus{ReceiptID: mine, Status: "generated"}) {
		t.Fatalf("first event %+v (another merchant's receipt must not show)", ev)
	}
	e.pay(mine, "evt_list")
	for ev := next(); ev.Status != "paid"; ev = next() { // pending may come first, as on the way
		if ev != (dashStatus{ReceiptID: mine, Status: "pending"}) {
			t.Fatalf("after payment %+v", ev)
		}
	}
}
