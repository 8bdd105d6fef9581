package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gofrs/flock"
)

// devSecretsFile is where development keeps the secrets it generated, under the data directory
// (DEV_DATA_DIR, default .data, the directory of the private cluster and the journal).
const devSecretsFile = "dev-secrets.env"

// devSecretNames are the secrets development generates when missing (EDGE_SECRET only in gateway
// mode). The development chain's operator key is not among them: the chain lives in memory and
// its contracts are lost when it stops, so a key kept across restarts would sign for nothing.
var devSecretNames = []string{"JWT_SECRET", "CRON_SECRET", "PROCESSOR_WEBHOOK_SECRET", "SECRETS_KEY", "EDGE_SECRET"}

// PLATFORM_RECIPIENT, not a secret, is kept in the same file: development invents one when unset
// (an order needs it) and keeps it, so that receipts keep one platform address across restarts.

// devDataDir is where development keeps what must survive a restart: DEV_DATA_DIR, default .data.
func devDataDir(getenv func(string) string) string {
	if dir := strings.TrimSpace(getenv("DEV_DATA_DIR")); dir != "" {
		return dir
	}
	return ".data"
}

// devSecrets reports what loadPersistentConfig did with the development secrets file.
type devSecrets struct {
	Path      string   // the file; empty in production
	Generated []string // generated now and written to Path
	Reused    []string // read from Path (written by an earlier start)
}

// loadPersistentConfig is loadConfig for the commands: in development, a secret missing from the
// environment is read from DEV_DATA_DIR/dev-secrets.env, and one generated now is written there
// (file 0600, directory 0700), so that sessions, and data encrypted with SECRETS_KEY, survive a
// restart. The environment always wins over the file. Production never reads or writes the file
// and still refuses to start without its secrets.
func loadPersistentConfig(getenv func(string) string, random io.Reader) (config, devSecrets, error) {
	if strings.TrimSpace(getenv("APP_ENV")) == "production" {
		c, _, err := loadConfig(getenv, random)
		return c, devSecrets{}, err
	}
	info := devSecrets{Path: filepath.Join(devDataDir(getenv), devSecretsFile)}
	stored, err := readDevSecrets(info.Path)
	if err != nil {
		return config{}, info, err
	}
	c, generated, err := loadConfig(withDevSecrets(getenv, stored), random)
	info.Reused = reusedDevSecrets(getenv, stored)
	if err != nil {
		if len(info.Reused) > 0 {
			// A bad value there is not in the environment the operator looks at: say where it is.
			err = fmt.Errorf("%w\n  (%s not set in the environment, read from %s)", err, strings.Join(info.Reused, ", "), info.Path)
		}
		return c, info, err
	}
	if c.PlatformRecipient == "" {
		// Orders are refused without a platform recipient (spec): development invents one, kept
		// with the secrets, so that a first order works; production must name its own.
		if err := c.inventPlatformRecipient(random); err != nil {
			return c, info, err
		}
		generated = append(generated, "PLATFORM_RECIPIENT")
	}
	if len(generated) == 0 {
		return c, info, nil
	}
	err = c.keepDevSecrets(&info, generated)
	return c, info, err
}

// withDevSecrets is getenv with the development secrets file behind it: a secret or
// PLATFORM_RECIPIENT the environment leaves blank is read from stored.
func withDevSecrets(getenv func(string) string, stored map[string]string) func(string) string {
	return func(name string) string {
		if v := getenv(name); strings.TrimSpace(v) != "" {
			return v
		}
		if name == "PLATFORM_RECIPIENT" || slices.Contains(devSecretNames, name) {
			return stored[name]
		}
		return ""
	}
}

// reusedDevSecrets names the values taken from stored because the environment left them blank.
func reusedDevSecrets(getenv func(string) string, stored map[string]string) []string {
	var reused []string
	for _, name := range devSecretNames {
		if strings.TrimSpace(getenv(name)) == "" && stored[name] != "" {
			reused = append(reused, name)
		}
	}
	if stored["PLATFORM_RECIPIENT"] != "" && strings.TrimSpace(getenv("PLATFORM_RECIPIENT")) == "" {
		reused = append(reused, "PLATFORM_RECIPIENT")
	}
	return reused
}

// inventPlatformRecipient sets a random platform recipient address.
func (c *config) inventPlatformRecipient(random io.Reader) error {
	var b [20]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return fmt.Errorf("generate PLATFORM_RECIPIENT: %w", err)
	}
	c.PlatformRecipient = "0x" + hex.EncodeToString(b[:])
	return nil
}

// keepDevSecrets writes the generated values to info.Path and records each name in info as
// generated, or as reused when the file already held a value, which then replaces the one
// generated.
func (c *config) keepDevSecrets(info *devSecrets, generated []string) error {
	values := map[string]string{}
	for _, name := range generated {
		values[name] = c.secretValue(name)
	}
	winners, err := writeDevSecrets(info.Path, values)
	if err != nil {
		return fmt.Errorf("keep development secrets in %s: %w", info.Path, err)
	}
	// Another process (serve and `dev merchant` started together) may have written first: its
	// values win so that both agree.
	for _, name := range generated {
		if winners[name] != values[name] {
			if err := c.setSecret(name, winners[name]); err != nil {
				return fmt.Errorf("%s in %s: %w", name, info.Path, err)
			}
			info.Reused = append(info.Reused, name)
			continue
		}
		info.Generated = append(info.Generated, name)
	}
	return nil
}

// secretValue is the configured value of one of devSecretNames, as the environment spells it.
func (c config) secretValue(name string) string {
	switch name {
	case "JWT_SECRET":
		return c.JWTSecret
	case "CRON_SECRET":
		return c.CronSecret
	case "PROCESSOR_WEBHOOK_SECRET":
		return c.ProcessorWebhookSecret
	case "SECRETS_KEY":
		return hex.EncodeToString(c.SecretsKey)
	case "EDGE_SECRET":
		return c.EdgeSecret
	case "PLATFORM_RECIPIENT":
		return c.PlatformRecipient
	}
	return ""
}

func (c *config) setSecret(name, v string) error {
	switch name {
	case "JWT_SECRET":
		c.JWTSecret = v
	case "CRON_SECRET":
		c.CronSecret = v
	case "PROCESSOR_WEBHOOK_SECRET":
		c.ProcessorWebhookSecret = v
	case "SECRETS_KEY":
		k, err := hex.DecodeString(v)
		if err != nil || len(k) != 32 {
			return errors.New("SECRETS_KEY must be 64 hex characters (32 bytes)")
		}
		c.SecretsKey = k
	case "EDGE_SECRET":
		c.EdgeSecret = v
	case "PLATFORM_RECIPIENT":
		c.PlatformRecipient = v
	}
	return nil
}

// readDevSecrets reads NAME=value lines (# comments allowed); a missing file is an empty set. A
// file readable by others is made private again.
func readDevSecrets(path string) (map[string]string, error) {
	out := map[string]string{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read development secrets: %w", err)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("make %s private: %w", path, err)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s line %d: want NAME=value", path, n)
		}
		out[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	return out, nil
}

// writeDevSecrets adds values to the file and returns the file's values after the write. The
// first writer wins a race: a name already in the file keeps its value. Writers take turns on
// the file's lock (path.lock) from their read to their rename: two processes adding the same
// name to an existing file otherwise each read it without the name, the last rename kept its
// value, and the other went on with its own.
func writeDevSecrets(path string, values map[string]string) (map[string]string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	lock := flock.New(path + ".lock")
	if err := lock.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	defer func() { _ = lock.Unlock() }()
	for attempt := 0; ; attempt++ {
		current, err := readDevSecrets(path)
		if err != nil {
			return nil, err
		}
		all := map[string]string{}
		for k, v := range values {
			all[k] = v
		}
		for k, v := range current {
			all[k] = v
		}
		tmp, err := writeDevSecretsTemp(dir, all)
		if err != nil {
			return nil, err
		}
		if len(current) == 0 {
			// No file yet: a link fails if another process created it meanwhile.
			err = os.Link(tmp, path)
			_ = os.Remove(tmp)
			if err == nil {
				return all, nil
			}
			if errors.Is(err, fs.ErrExist) && attempt < 3 {
				continue
			}
			return nil, err
		}
		if err := os.Rename(tmp, path); err != nil {
			_ = os.Remove(tmp)
			return nil, err
		}
		return all, nil
	}
}

// writeDevSecretsTemp writes all, sorted by name, to a new private file in dir and returns its
// name; on failure it leaves no file behind.
func writeDevSecretsTemp(dir string, all map[string]string) (string, error) {
	tmp, err := os.CreateTemp(dir, devSecretsFile+".*")
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("# payledger development secrets, generated on first start and reused (never used in production)\n")
	for _, k := range names {
		fmt.Fprintf(&b, "%s=%s\n", k, all[k])
	}
	_, werr := tmp.WriteString(b.String())
	if werr == nil {
		werr = tmp.Chmod(0o600)
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return "", werr
	}
	return tmp.Name(), nil
}
