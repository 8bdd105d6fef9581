package main

import (
	"crypto/rand"
	"strings"
	"testing"
)

// TestConnectionBudgetsPastPostgreSQLsAreRefused: DB_MAX_CONNS and EXPORT_MAX_CONCURRENT are
// pool sizes, which a pool keeps as an int32; past it the value wrapped around and started serve
// with another budget (stop 67: DB_MAX_CONNS=4294967298 was a pool of 2 connections,
// EXPORT_MAX_CONCURRENT=4294967297 one export connection behind four billion export slots,
// 2147483648 a negative pool). A budget past the most connections PostgreSQL takes is refused at
// start, naming the variable; the largest one it takes is accepted.
func TestConnectionBudgetsPastPostgreSQLsAreRefused(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"4294967298", "2147483648", "262144"} {
		_, _, err := loadConfig(env(map[string]string{"DB_MAX_CONNS": v, "EXPORT_MAX_CONCURRENT": v}), rand.Reader)
		if err == nil || !strings.Contains(err.Error(), "DB_MAX_CONNS must be at most 262143") ||
			!strings.Contains(err.Error(), "EXPORT_MAX_CONCURRENT must be at most 262143") {
			t.Fatalf("%s: %v; want both refused", v, err)
		}
	}
	c, _, err := loadConfig(env(map[string]string{"DB_MAX_CONNS": "262143", "EXPORT_MAX_CONCURRENT": "262143"}), rand.Reader)
	if err != nil || c.DBMaxConns != 262143 || c.ExportMaxConcurrent != 262143 {
		t.Fatalf("the largest budget: %d %d %v", c.DBMaxConns, c.ExportMaxConcurrent, err)
	}
}
