package readmodels

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestUsersSearchListsIgnoreCase (stop 65): the domains, platforms and languages filters compared
// case-sensitively (`EN` did not find a user of `en`, nor `defi` one of `DeFi`) while q did not.
// They now compare as q does, both sides lowered by PostgreSQL's lower(), on the database's path,
// on the window read and on the window patched by this instance's own write, alike.
func TestUsersSearchListsIgnoreCase(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	wallet := func(i int) string { return "0x" + strings.Repeat("0", 39) + string(rune('0'+i)) }
	for i, u := range []struct{ domains, platforms, languages string }{
		{"{DeFi,NFT}", "{X}", "{EN}"},
		{"{defi}", "{x,YouTube}", "{en,Fr}"},
		{"{gaming}", "{twitch}", "{es}"},
		{"{Español}", "{}", "{}"},
	} {
		if _, err := pool.Exec(ctx, `INSERT INTO users (wallet, display_name, xp, domains, platforms, languages)
			VALUES ($1, $2, $3, $4::text[], $5::text[], $6::text[])`, wallet(i+1), "user", 100-i, u.domains, u.platforms, u.languages); err != nil {
			t.Fatal(err)
		}
	}
	sqlOnly, mem := NewUsers(pool), windowed(t, pool)
	search := func(store *Users, q UserQuery) []string {
		t.Helper()
		q.Limit, q.Scan, q.Now = 25, 400, time.Now()
		users, total, err := store.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if total != len(users) {
			t.Fatalf("%+v: total %d for %d users", q, total, len(users))
		}
		got := wallets(users)
		slices.Sort(got)
		return got
	}
	cases := []struct {
		q    UserQuery
		want []string
	}{
		{UserQuery{Domains: []string{"defi"}}, []string{wallet(1), wallet(2)}},
		{UserQuery{Domains: []string{"DEFI", "nft"}}, []string{wallet(1)}},
		{UserQuery{Platforms: []string{"x"}}, []string{wallet(1), wallet(2)}},
		{UserQuery{Platforms: []string{"YOUTUBE"}}, []string{wallet(2)}},
		{UserQuery{Languages: []string{"En"}}, []string{wallet(1), wallet(2)}},
		{UserQuery{Languages: []string{"fr", "EN"}}, []string{wallet(2)}},
		{UserQuery{Q: "0X", Languages: []string{"ES"}, Domains: []string{"Gaming"}}, []string{wallet(3)}},
		{UserQuery{Domains: []string{"Español"}}, []string{wallet(4)}},
	}
	check := func(when string) {
		t.Helper()
		for _, c := range cases {
			if got := search(sqlOnly, c.q); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s, database: %+v found %v, want %v", when, c.q, got, c.want)
			}
			if got := search(mem, c.q); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s, window: %+v found %v, want %v", when, c.q, got, c.want)
			}
		}
	}
	check("read window")
	// This instance's own write patches its window with the row it returned, lists lowered too.
	langs, domains := []string{"FR"}, []string{"NFT"}
	if _, err := mem.UpdateProfile(ctx, wallet(3), ProfilePatch{Languages: &langs, Domains: &domains}, time.Now()); err != nil {
		t.Fatal(err)
	}
	cases = append(cases[:0],
		struct {
			q    UserQuery
			want []string
		}{UserQuery{Languages: []string{"fr"}}, []string{wallet(2), wallet(3)}},
		struct {
			q    UserQuery
			want []string
		}{UserQuery{Domains: []string{"nft"}}, []string{wallet(1), wallet(3)}})
	check("patched window")
}
