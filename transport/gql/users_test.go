package gql

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func postQuery(t *testing.T, url, query string) (int, map[string]json.RawMessage, []map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	resp, err := http.Post(url, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data   map[string]json.RawMessage
		Errors []map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, r.Data, r.Errors
}

func userAliases(n, distinct int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, ` u%d: user(wallet: "0x%040x") { wallet }`, i, i%distinct)
	}
	return b.String() + " }"
}

// TestUserLookupsBounded: a user(wallet:) lookup costs UserCost, so an operation holds about
// 100 of them (it cost 2: 1,000 aliases ran 1,000 reads at once on the main pool), and the
// request's loader reads them one at a time, each wallet once.
func TestUserLookupsBounded(t *testing.T) {
	store := &readCounter{second: make(chan struct{})}
	srv := httptest.NewServer(NewHandler(store, time.Now))
	defer srv.Close()

	_, data, errs := postQuery(t, srv.URL, userAliases(100, 100))
	if len(errs) == 0 || errs[0]["extensions"].(map[string]any)["code"] != "COMPLEXITY_LIMIT_EXCEEDED" || len(data) != 0 || store.reads != 0 {
		t.Fatalf("100 lookups: %v %d data, %d reads", errs, len(data), store.reads)
	}
	_, data, errs = postQuery(t, srv.URL, userAliases(12, 6))
	if len(errs) != 0 || len(data) != 12 {
		t.Fatalf("12 lookups: %v %d", errs, len(data))
	}
	if store.most != 1 || store.reads != 6 {
		t.Fatalf("12 lookups of 6 wallets: %d reads, at most %d at once; want 6, one at a time", store.reads, store.most)
	}
}
