package main

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
)

// redacted stands for a secret in a log line.
var redacted = []byte("[redacted]")

// minRedacted is the shortest value redacted: a shorter one (a development secret such as "x")
// would be replaced all over the logs, and cannot be one production accepts.
const minRedacted = 8

// secretsOut is the list of configured secrets that the logs never show, shared by the writers of
// one run; empty until the configuration is read.
type secretsOut struct{ list atomic.Pointer[[][]byte] }

// redactor writes log lines with every configured secret replaced by "[redacted]": errors from
// libraries quote what they were given, and a node provider's key lives in ETH_RPC_URL's path
// (https://base-mainnet.example/v2/<key>), which go-ethereum's and net/http's errors repeat in
// every line about an unreachable node.
type redactor struct {
	w       io.Writer
	secrets *secretsOut
}

func (r redactor) Write(p []byte) (int, error) {
	n := len(p)
	if list := r.secrets.list.Load(); list != nil {
		for _, s := range *list {
			if bytes.Contains(p, s) {
				p = bytes.ReplaceAll(p, s, redacted)
			}
		}
	}
	if _, err := r.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// redact is v with every secret replaced by "[redacted]", as the log lines are (for what is not a
// log line: the spans exported, startTracing).
func (s *secretsOut) redact(v string) string {
	if list := s.list.Load(); list != nil {
		for _, sec := range *list {
			if strings.Contains(v, string(sec)) {
				v = strings.ReplaceAll(v, string(sec), string(redacted))
			}
		}
	}
	return v
}

// Fd is the file descriptor of the destination, so that the console format is chosen for a
// terminal as before (terminal); not a file: none.
func (r redactor) Fd() uintptr {
	if f, ok := r.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// set makes the logs hide cfg's secrets: the secret variables' values, the passwords in its
// URLs, and what follows the host in ETH_RPC_URL and PROCESSOR_API_URL (where providers put keys).
func (s *secretsOut) set(cfg config) {
	values := []string{cfg.JWTSecret, cfg.CronSecret, cfg.ProcessorWebhookSecret, cfg.EdgeSecret, cfg.MetricsToken,
		cfg.ProcessorAPIKey, hex.EncodeToString(cfg.SecretsKey), cfg.OperatorKey, strings.TrimPrefix(cfg.OperatorKey, "0x"), string(cfg.VerifyKey)}
	for _, u := range []string{cfg.DatabaseURL, cfg.DatabaseReplicaURL, cfg.RedisURL, cfg.EventStoreURL, cfg.EthRPCURL,
		cfg.ProcessorAPIURL, cfg.Tracing.Endpoint} {
		values = append(values, urlSecrets(u)...)
	}
	for _, u := range []string{cfg.EthRPCURL, cfg.ProcessorAPIURL} {
		values = append(values, afterHost(u))
	}
	var list [][]byte
	for _, v := range values {
		if len(v) < minRedacted {
			continue
		}
		list = append(list, []byte(v))
		if q, err := jsonString(v); err == nil && q != v { // as a JSON log line writes it
			list = append(list, []byte(q))
		}
	}
	// The longest first: a URL's tail holds its key, which must not be half replaced first.
	slices.SortFunc(list, func(a, b []byte) int { return cmp.Compare(len(b), len(a)) })
	s.list.Store(&list)
}

// urlSecrets are the password of u's user information and the values of its password query
// parameters (PostgreSQL's driver takes `?password=` and `?sslpassword=` as libpq does, and the
// development start's "nothing answers at <URL>" repeated them), each as written and decoded.
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	out := queryPasswords(u)
	if u.User == nil {
		return out
	}
	p, ok := u.User.Password()
	if !ok {
		return out
	}
	out = append(out, p)
	if _, after, found := strings.Cut(strings.TrimPrefix(raw, u.Scheme+"://"), ":"); found {
		if written, _, ok := strings.Cut(after, "@"); ok && written != p {
			out = append(out, written)
		}
	}
	return out
}

// queryPasswords are the values of u's password and sslpassword query parameters, decoded and as
// written.
func queryPasswords(u *url.URL) []string {
	var out []string
	for _, pair := range strings.Split(u.RawQuery, "&") {
		name, written, ok := strings.Cut(pair, "=")
		if key, err := url.QueryUnescape(name); !ok || err != nil || (key != "password" && key != "sslpassword") {
			continue
		}
		out = append(out, written)
		if v, err := url.QueryUnescape(written); err == nil && v != written {
			out = append(out, v)
		}
	}
	return out
}

// afterHost is raw without its scheme and host: its path, query and fragment, as written.
func afterHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	_, tail, _ := strings.Cut(raw, u.Host)
	if tail == "/" {
		return ""
	}
	return tail
}

// jsonString is s as it appears inside a JSON string (zerolog does not escape HTML characters).
func jsonString(s string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	q := strings.TrimSuffix(b.String(), "\n")
	return q[1 : len(q)-1], nil
}
