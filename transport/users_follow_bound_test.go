package transport

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/payledger/payledger/readmodels"
)

// TestFollowsPerWalletAreBounded: a wallet follows at most readmodels.MaxFollowing wallets; a new
// follow past it is 400 invalid_input and stores nothing, while following one already followed
// again, and unfollowing, still answer 200. Any address can be followed, so a session added a row
// per request without end.
func TestFollowsPerWalletAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	me := strings.ToLower(m.wallet)
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO follows (follower, followee)
		SELECT $1, '0x' || lpad(to_hex(i), 40, '0') FROM generate_series(1, $2::int) i`, me, readmodels.MaxFollowing); err != nil {
		t.Fatal(err)
	}
	call := func(method, wallet string) (int, map[string]any) {
		rec := e.adminCall(m.cookies, m.csrf, method, "/api/users/follow", `{"wallet":"`+wallet+`"}`)
		return rec.Code, decode(t, rec)
	}
	followed := "0x" + strings.Repeat("0", 39) + "1"
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = call(http.MethodPost, "0x"+strings.Repeat("e", 39)+string(rune('a'+i)))
		}()
	}
	wg.Wait()
	for i, code := range codes {
		if code != 400 {
			t.Fatalf("follow %d past the bound: %d", i, code)
		}
	}
	if code, body := call(http.MethodPost, userA); code != 400 || body["error"] != "invalid_input" || !strings.Contains(body["message"].(string), "at most") {
		t.Fatalf("a follow past the bound: %d %v", code, body)
	}
	if code, _ := call(http.MethodPost, followed); code != 200 {
		t.Fatalf("following a followed wallet again: %d", code)
	}
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM follows WHERE follower = $1`, me).Scan(&n); err != nil || n != readmodels.MaxFollowing {
		t.Fatalf("%d follows stored (%v), want %d", n, err, readmodels.MaxFollowing)
	}
	if code, _ := call(http.MethodDelete, followed); code != 200 {
		t.Fatalf("unfollow: %d", code)
	}
	if code, body := call(http.MethodPost, userA); code != 200 || body["following"] != true {
		t.Fatalf("a follow after an unfollow: %d %v", code, body)
	}
}
