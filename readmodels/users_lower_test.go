package readmodels

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/migrations"
	"github.com/payledger/payledger/migrations/pgtest"
)

// localePool returns a pool on a fresh migrated database created with the given locale clause
// (CREATE DATABASE ... TEMPLATE template0 <clause>), dropped when t ends.
func localePool(t *testing.T, clause string) *pgxpool.Pool {
	t.Helper()
	base := pgtest.Server()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "payledger_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8' "+clause); err != nil {
		t.Skipf("this server cannot create a database with %s: %v", clause, err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Logf("drop %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, _ := url.Parse(base)
	u.Path = "/" + name
	if err := migrations.Apply(ctx, u.String()); err != nil {
		t.Fatal(err)
	}
	return pgtest.PoolFor(t, u.String())
}

// TestUsersSearchLowersAsTheDatabase (stop 62): the window in memory lowered display names and q
// with Go (strings.ToLower) and the database's search compared q lowered by Go with
// display_name_lower (PostgreSQL's lower(), which follows the database's locale: ASCII only under
// C, full mappings under ICU), so a q with letters like "İ" or "ẞ" matched different users
// depending on which path answered. Both now lower with PostgreSQL's lower(), under each locale.
func TestUsersSearchLowersAsTheDatabase(t *testing.T) {
	t.Parallel()
	names := []string{"İstanbul", "i̇nce", "iota", "ẞtraße", "Straße", "ÀBC", "àbc", "ΣΟΦΙΑ", "σοφια", "plain", "ǅemal", "ΐ"}
	queries := []string{"İ", "i̇", "i", "İST", "ist", "ẞ", "ß", "SS", "À", "à", "ÀBC", "Σ", "σ", "ς", "ΣΟΦ", "ǅ", "ǆ", "Ǆ", "ΐ", "PLAIN", "plain", "0X"}
	for locale, clause := range map[string]string{"C": "LC_COLLATE 'C' LC_CTYPE 'C'", "C.UTF-8": "LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'",
		"ICU und": "LOCALE 'C.UTF-8' LOCALE_PROVIDER icu ICU_LOCALE 'und'"} {
		t.Run(locale, func(t *testing.T) {
			t.Parallel()
			pool := localePool(t, clause)
			ctx := context.Background()
			for i, n := range names {
				if _, err := pool.Exec(ctx, `INSERT INTO users (wallet, display_name, xp) VALUES ($1, $2, $3)`,
					"0x"+strings.Repeat("0", 38)+hex.EncodeToString([]byte{byte(i + 1)}), n, 100-i); err != nil {
					t.Fatal(err)
				}
			}
			sqlOnly, mem := NewUsers(pool), windowed(t, pool)
			compare := func(when string) {
				t.Helper()
				for _, q := range queries {
					uq := UserQuery{Q: q, Limit: 50, Scan: 1000, Now: time.Now()}
					want, wantTotal, err := sqlOnly.Search(ctx, uq)
					if err != nil {
						t.Fatal(err)
					}
					got, gotTotal, err := mem.Search(ctx, uq)
					if err != nil {
						t.Fatal(err)
					}
					if gotTotal != wantTotal || !reflect.DeepEqual(displayNames(got), displayNames(want)) {
						t.Errorf("%s, q %q: the window found %v (%d), the database %v (%d)", when, q,
							displayNames(got), gotTotal, displayNames(want), wantTotal)
					}
				}
			}
			compare("read window")
			// A profile written by this instance patches the window with its row: the same lowering.
			name := "ẞİG"
			if _, err := mem.UpdateProfile(ctx, "0x"+strings.Repeat("0", 38)+"01", ProfilePatch{DisplayName: &name}, time.Now()); err != nil {
				t.Fatal(err)
			}
			compare("patched window")
		})
	}
}

func displayNames(users []User) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = u.DisplayName
	}
	return out
}
