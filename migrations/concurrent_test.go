package migrations_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/migrations"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestConcurrentStartsPrepareTheDatabaseOnce: several instances starting at once on a server
// without their database each create it if missing and apply the migrations; none fails, and
// every migration is applied once.
func TestConcurrentStartsPrepareTheDatabaseOnce(t *testing.T) {
	t.Parallel()
	base := pgtest.Server()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "payledger_test_" + hex.EncodeToString(b[:])
	u.Path = "/" + name
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), base); err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	})
	const instances = 6
	errs := make(chan error, instances)
	var wg sync.WaitGroup
	for range instances {
		wg.Go(func() {
			if err := migrations.EnsureDatabase(context.Background(), u.String()); err != nil {
				errs <- err
				return
			}
			errs <- migrations.Apply(context.Background(), u.String())
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a start failed: %v", err)
		}
	}
}

// TestApplyOnANewerSchema: a database a newer payledger migrated is reported as such
// (ErrNewerSchema), with nothing applied, instead of tern's "current version outside the valid
// versions"; the version stays the newer one.
func TestApplyOnANewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := emptyDatabase(t)
	if err := migrations.Apply(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var newer int
	if err := conn.QueryRow(ctx, `UPDATE schema_version SET version = version + 1 RETURNING version`).Scan(&newer); err != nil {
		t.Fatal(err)
	}
	err = migrations.Apply(ctx, dbURL)
	if !errors.Is(err, migrations.ErrNewerSchema) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", newer)) {
		t.Fatalf("Apply on a newer schema: %v", err)
	}
	var v int
	if err := conn.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil || v != newer {
		t.Fatalf("version %d (%v), want %d", v, err, newer)
	}
}

// TestApplySaysWhenItWaits: an instance started while another holds the migrations' lock (a long
// migration) says so before it waits, then applies once the lock is free.
func TestApplySaysWhenItWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := emptyDatabase(t)
	holder, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock(9628173550095224)`); err != nil { // tern's lock
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- migrations.ApplyWaiting(ctx, dbURL, func() { close(waiting) }) }()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("Apply returned while another held the lock: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("Apply waits for the lock without a word")
	}
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_unlock(9628173550095224)`); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var v int
	if err := holder.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil || v == 0 {
		t.Fatalf("schema version %d (%v) after the wait", v, err)
	}
}
