package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/migrations/pgtest"
)

// A METRICS_ADDR or PPROF_ADDR that cannot be bound (here: taken) stops serve at start, naming
// the variable: before, serve ran on with no /metrics at all and one error line in its log.
func TestServeRefusesASideAddressItCannotBind(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, name := range []string{"METRICS_ADDR", "PPROF_ADDR"} {
		t.Run(name, func(t *testing.T) {
			vars := map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "DEVCHAIN": "off", "HTTP_ADDR": "127.0.0.1:0",
				"PLATFORM_RECIPIENT": "0x" + strings.Repeat("b", 40), name: taken.Addr().String()}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a serve that starts runs until this ends: exit 0
			defer cancel()
			var out syncbuf.Buffer // serve logs from its workers too
			if code := run(ctx, []string{"serve"}, env(vars), &out, &out); code == 0 || !strings.Contains(out.String(), name+": listen tcp") {
				t.Fatalf("serve with %s taken: exit %d\n%s", name, code, out.String())
			}
		})
	}
}
