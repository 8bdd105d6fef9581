package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
)

func TestDevSecretsKeptAcrossLoads(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DEV_DATA_DIR": dir}
	first, kept, err := loadPersistentConfig(env(vars), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(kept.Generated, ",") != "JWT_SECRET,CRON_SECRET,PROCESSOR_WEBHOOK_SECRET,SECRETS_KEY,PLATFORM_RECIPIENT" || len(kept.Reused) != 0 {
		t.Fatalf("first load: %+v", kept)
	}
	second, kept, err := loadPersistentConfig(env(vars), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.Generated) != 0 || len(kept.Reused) != 5 {
		t.Fatalf("second load: %+v", kept)
	}
	if first.JWTSecret != second.JWTSecret || first.CronSecret != second.CronSecret ||
		first.ProcessorWebhookSecret != second.ProcessorWebhookSecret || first.PlatformRecipient != second.PlatformRecipient || !address.Valid(first.PlatformRecipient) || !bytes.Equal(first.SecretsKey, second.SecretsKey) {
		t.Fatal("the second load did not reuse the first load's secrets")
	}
	st, err := os.Stat(kept.Path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v, want 0600", st.Mode().Perm())
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v, want 0700", st.Mode().Perm())
	}

	// The environment wins over the file; gateway mode adds EDGE_SECRET to the file.
	vars["JWT_SECRET"], vars["AUTH_MODE"] = strings.Repeat("j", 40), "gateway"
	third, kept, err := loadPersistentConfig(env(vars), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if third.JWTSecret != vars["JWT_SECRET"] || strings.Join(kept.Generated, ",") != "EDGE_SECRET" || third.CronSecret != first.CronSecret {
		t.Fatalf("env over file: %+v", kept)
	}
	fourth, _, err := loadPersistentConfig(env(vars), rand.Reader)
	if err != nil || fourth.EdgeSecret != third.EdgeSecret {
		t.Fatalf("edge secret not kept: %v", err)
	}
	b, _ := os.ReadFile(kept.Path)
	if strings.Contains(string(b), vars["JWT_SECRET"]) {
		t.Fatal("a secret from the environment was copied to the file")
	}
}

func TestDevSecretsNeverInProduction(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	// A development file next to a production start is not used: production still refuses.
	if _, _, err := loadPersistentConfig(env(map[string]string{"DEV_DATA_DIR": dir}), rand.Reader); err != nil {
		t.Fatal(err)
	}
	_, kept, err := loadPersistentConfig(env(map[string]string{"DEV_DATA_DIR": dir, "APP_ENV": "production"}), rand.Reader)
	if err == nil || !strings.Contains(err.Error(), "JWT_SECRET is required in production") || kept.Path != "" {
		t.Fatalf("production without secrets: %v %+v", err, kept)
	}
	empty := filepath.Join(t.TempDir(), ".data")
	_, _, _ = loadPersistentConfig(env(map[string]string{"DEV_DATA_DIR": empty, "APP_ENV": "production"}), rand.Reader)
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Fatal("production wrote a development secrets file")
	}
}

func TestDevSecretsConcurrentStartsAgree(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DEV_DATA_DIR": dir}
	keys := make([]string, 6)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, _, err := loadPersistentConfig(env(vars), rand.Reader)
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = c.JWTSecret
		}()
	}
	wg.Wait()
	for _, k := range keys {
		if k != keys[0] {
			t.Fatalf("concurrent starts disagree: %v", keys)
		}
	}
}

// Data encrypted with SECRETS_KEY in one run (a receipt's webhook signing key) reads in the next.
func TestDevSecretsDecryptAcrossRestarts(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	vars := map[string]string{"DEV_DATA_DIR": filepath.Join(t.TempDir(), ".data")}
	run1, _, err := loadPersistentConfig(env(vars), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys1, err := secrets.NewWebhookKeys(pool, run1.SecretsKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := keys1.Save(ctx, "restart-1", "whsec_kept"); err != nil {
		t.Fatal(err)
	}
	run2, _, err := loadPersistentConfig(env(vars), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys2, err := secrets.NewWebhookKeys(pool, run2.SecretsKey)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := keys2.Get(ctx, "restart-1"); err != nil || got != "whsec_kept" {
		t.Fatalf("after restart: %q %v", got, err)
	}
	// Without the file (what happened before), the next run cannot read it.
	other, _, err := loadPersistentConfig(env(map[string]string{"DEV_DATA_DIR": filepath.Join(t.TempDir(), ".data")}), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys3, _ := secrets.NewWebhookKeys(pool, other.SecretsKey)
	if _, err := keys3.Get(ctx, "restart-1"); err == nil {
		t.Fatal("a fresh key decrypted the old data: the test proves nothing")
	}
}
