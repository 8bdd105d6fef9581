package transport

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestPlans walks the four plan routes: shapes, codes, ownership and deactivation.
func TestPlans(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	merchant, _ := crypto.GenerateKey()
	other, _ := crypto.GenerateKey()
	wallet := walletOf(merchant)
	cookies, csrf := e.login(merchant)
	otherCookies, otherCSRF := e.login(other)
	write := func(method, body string) (int, map[string]any) {
		rec := e.do(req{method: method, path: "/api/subscriptions/plans", body: body, cookies: cookies,
			header: map[string]string{CSRFHeader: csrf}})
		return rec.Code, decode(t, rec)
	}

	code, body := write(http.MethodPost, fmt.Sprintf(`{"wallet":%q,"name":"Pro","description":"all of it","priceUsd":9.99,"period":"MONTHLY"}`, wallet))
	if code != http.StatusCreated || body["success"] != true {
		t.Fatalf("create: %d %v", code, body)
	}
	plan := body["plan"].(map[string]any)
	id, _ := plan["planId"].(string)
	if id == "" || plan["priceUsd"] != 9.99 || plan["period"] != "MONTHLY" || plan["active"] != true ||
		plan["name"] != "Pro" || plan["description"] != "all of it" || plan["createdAt"] == nil ||
		plan["permissionExtraData"] != "0x"+hex.EncodeToString([]byte(id)) {
		t.Fatalf("plan: %v", plan)
	}

	for name, b := range map[string]string{
		"zero price":      `{"wallet":%q,"name":"x","priceUsd":0,"period":"MONTHLY"}`,
		"negative price":  `{"wallet":%q,"name":"x","priceUsd":-1,"period":"MONTHLY"}`,
		"three decimals":  `{"wallet":%q,"name":"x","priceUsd":1.001,"period":"MONTHLY"}`,
		"string price":    `{"wallet":%q,"name":"x","priceUsd":"1","period":"MONTHLY"}`,
		"unknown period":  `{"wallet":%q,"name":"x","priceUsd":1,"period":"DAILY"}`,
		"no name":         `{"wallet":%q,"priceUsd":1,"period":"WEEKLY"}`,
		"empty name":      `{"wallet":%q,"name":" ","priceUsd":1,"period":"WEEKLY"}`,
		"no wallet":       `{"name":"x","priceUsd":1,"period":"WEEKLY"%.0s}`,
		"unknown field":   `{"wallet":%q,"name":"x","priceUsd":1,"period":"WEEKLY","color":"red"}`,
		"planId on write": `{"wallet":%q,"planId":"p","name":"x","priceUsd":1,"period":"WEEKLY"}`,
	} {
		if code, body := write(http.MethodPost, fmt.Sprintf(b, wallet)); code != http.StatusBadRequest || body["error"] != "invalid_input" {
			t.Errorf("%s: %d %v", name, code, body)
		}
	}
	// Another wallet in the body: 403, whoever is signed in.
	if code, body := write(http.MethodPost, fmt.Sprintf(`{"wallet":%q,"name":"x","priceUsd":1,"period":"WEEKLY"}`, walletOf(other))); code != http.StatusForbidden {
		t.Fatalf("foreign wallet: %d %v", code, body)
	}
	// Without a session 401; without CSRF 403.
	if rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/plans", body: `{}`}); rec.Code != http.StatusUnauthorized {
		t.Fatalf("no session: %d", rec.Code)
	}
	if rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/plans", body: `{}`, cookies: cookies}); rec.Code != http.StatusForbidden {
		t.Fatalf("no csrf: %d", rec.Code)
	}

	code, body = write(http.MethodPut, fmt.Sprintf(`{"planId":%q,"name":"Pro+","priceUsd":"12.5"}`, id))
	if code != http.StatusBadRequest {
		t.Fatalf("string price on update: %d %v", code, body)
	}
	code, body = write(http.MethodPut, fmt.Sprintf(`{"planId":%q,"name":"Pro+","priceUsd":12.5,"period":"YEARLY"}`, id))
	plan, _ = body["plan"].(map[string]any)
	if code != http.StatusOK || plan["name"] != "Pro+" || plan["priceUsd"] != 12.5 || plan["period"] != "YEARLY" || plan["description"] != "all of it" {
		t.Fatalf("update: %d %v", code, body)
	}
	rec := e.do(req{method: http.MethodPut, path: "/api/subscriptions/plans", body: fmt.Sprintf(`{"planId":%q,"name":"mine"}`, id),
		cookies: otherCookies, header: map[string]string{CSRFHeader: otherCSRF}})
	if rec.Code != http.StatusForbidden {
		t.Fatalf("update by another wallet: %d %s", rec.Code, rec.Body)
	}
	if code, _ := write(http.MethodPut, `{"planId":"plan_nope","name":"x"}`); code != http.StatusNotFound {
		t.Fatalf("update of an unknown plan: %d", code)
	}

	list := func() []any {
		rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/plans?wallet=" + wallet})
		b := decode(t, rec)
		if rec.Code != http.StatusOK || b["success"] != true {
			t.Fatalf("list: %d %v", rec.Code, b)
		}
		return b["plans"].([]any)
	}
	if got := list(); len(got) != 1 {
		t.Fatalf("listed %d plans, want 1", len(got))
	}
	if rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/plans"}); rec.Code != http.StatusBadRequest {
		t.Fatalf("list without wallet: %d", rec.Code)
	}

	rec = e.do(req{method: http.MethodDelete, path: "/api/subscriptions/plans", body: fmt.Sprintf(`{"planId":%q,"wallet":%q}`, id, walletOf(other)),
		cookies: otherCookies, header: map[string]string{CSRFHeader: otherCSRF}})
	if rec.Code != http.StatusForbidden {
		t.Fatalf("delete by another wallet: %d %s", rec.Code, rec.Body)
	}
	code, body = write(http.MethodDelete, fmt.Sprintf(`{"planId":%q,"wallet":%q}`, id, wallet))
	if plan, _ := body["plan"].(map[string]any); code != http.StatusOK || body["success"] != true || plan["active"] != false {
		t.Fatalf("delete: %d %v", code, body)
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("a deactivated plan is listed: %v", got)
	}
	code, body = write(http.MethodPut, fmt.Sprintf(`{"planId":%q,"active":true}`, id))
	if plan, _ := body["plan"].(map[string]any); code != http.StatusOK || plan["active"] != true || len(list()) != 1 {
		t.Fatalf("reactivate: %d %v", code, body)
	}
}
