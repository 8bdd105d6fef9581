package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestEveryCommandLineAsGoFlagDoes: -h and --help print the usage on stdout and exit 0, before any
// configuration is read; a wrong flag or argument prints it with the usage on stderr and exits 2;
// `payledger` alone lists the subcommands, one line each.
func TestEveryCommandLineAsGoFlagDoes(t *testing.T) {
	t.Parallel()
	vars := env(map[string]string{"DEV_DATA_DIR": t.TempDir(), "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
	cli := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, vars, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	var helps [][]string
	for _, c := range subcommands() {
		helps = append(helps, []string{c.name, "--help"}, []string{c.name, "-h"})
	}
	helps = append(helps, []string{"devchain", "pay", "--help"}, []string{"devchain", "pay", "r_1", "--help"},
		[]string{"keys", "create", "--wallet", "0x1", "-h"}, []string{"dev", "merchant", "--help"}, []string{"help"}, []string{"help", "verify"})
	for _, args := range helps {
		code, out, errOut := cli(args...)
		if code != 0 || !strings.HasPrefix(out, "usage") || errOut != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	if _, out, _ := cli("devchain", "pay", "r_1", "--help"); !strings.Contains(out, "pays a receipt end to end") {
		t.Errorf("devchain pay <id> --help: %q", out)
	}
	for _, args := range [][]string{
		{"serve", "--frobnicate"}, {"migrate", "now"}, {"verify", "--frobnicate"}, {"keys", "create", "--frobnicate"},
		{"keys", "list"}, {"keys"}, {"projections", "rebuild", "nope"}, {"projections"}, {"receipts", "history"},
		{"dev", "merchant", "--frobnicate"}, {"dev"}, {"devchain", "--frobnicate"}, {"devchain", "extra"},
		{"devchain", "pay", "--frobnicate"}, {"devchain", "pay", "r_1", "--frobnicate"}, {"devchain", "pay", "--key", "k"},
	} {
		code, out, errOut := cli(args...)
		if code != 2 || !strings.Contains(errOut, "usage:") || strings.Contains(out, `"failed"`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	code, out, errOut := cli()
	if code != 2 || out != "" {
		t.Fatalf("no command: exit %d, stdout %q", code, out)
	}
	for _, c := range subcommands() {
		if n := strings.Count(errOut, "\n  "+c.name+" "); n != 1 {
			t.Errorf("the list names %s on %d lines:\n%s", c.name, n, errOut)
		}
	}
}

// TestLogFormat: LOG_FORMAT=json writes JSON lines, console zerolog's console format, unset JSON
// to what is not a terminal; anything else is refused (exit 2).
func TestLogFormat(t *testing.T) {
	t.Parallel()
	line := func(format string) string {
		t.Helper()
		logTo, err := logFormat(format)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		l := logTo(&b)
		l.Info().Str("k", "v").Msg("hello")
		return b.String()
	}
	for _, format := range []string{"json", ""} {
		var m map[string]any
		if err := json.Unmarshal([]byte(line(format)), &m); err != nil || m["message"] != "hello" || m["k"] != "v" {
			t.Errorf("LOG_FORMAT=%q: %q (%v)", format, line(format), err)
		}
	}
	if l := line("console"); !strings.Contains(l, "INF hello k=v") || strings.Contains(l, "\x1b[") {
		t.Errorf("console to a buffer (no colour): %q", l)
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"verify"}, env(map[string]string{"LOG_FORMAT": "xml"}), &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "LOG_FORMAT") {
		t.Errorf("LOG_FORMAT=xml: exit %d %q", code, errOut.String())
	}
}

// TestLogLevel: by default (and with LOG_LEVEL=info) a debug line, such as the deposit
// detector's per-step timings, is not written; LOG_LEVEL=debug writes it; a wrong level exits 2.
func TestLogLevel(t *testing.T) {
	t.Parallel()
	logTo, err := logFormat("json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		level string
		debug bool
	}{{"", false}, {"info", false}, {"INFO", false}, {"debug", true}, {"warn", false}} {
		leveled, err := logLevel(logTo, tc.level)
		if err != nil {
			t.Fatalf("LOG_LEVEL=%q: %v", tc.level, err)
		}
		var b bytes.Buffer
		l := leveled(&b)
		l.Debug().Msg("deposits: step")
		l.Error().Msg("kept")
		if got := strings.Contains(b.String(), "deposits: step"); got != tc.debug || !strings.Contains(b.String(), "kept") {
			t.Errorf("LOG_LEVEL=%q wrote %q", tc.level, b.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"verify"}, env(map[string]string{"LOG_LEVEL": "chatty"}), &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "LOG_LEVEL") {
		t.Errorf("LOG_LEVEL=chatty: exit %d %q", code, errOut.String())
	}
}
