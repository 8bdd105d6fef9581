package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/payledger/payledger/webhooks"
)

// runListener runs `payledger listen` against the stream at base, forwarding to forward with a
// new signing secret and retrying every 10 ms, until stop is called; out is what it printed.
// tweak, when not nil, changes the listener before it runs.
func runListener(t *testing.T, base, forward string, tweak func(*listener)) (out *syncBuffer, stop func()) {
	t.Helper()
	secret, err := webhooks.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	out = &syncBuffer{}
	l := &listener{base: base, key: "plk_test", forward: forward, secret: secret, out: out,
		retry: 10 * time.Millisecond, stream: &http.Client{}, post: &http.Client{Timeout: 5 * time.Second}}
	if tweak != nil {
		tweak(l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.run(ctx) }()
	return out, func() { cancel(); <-done }
}
