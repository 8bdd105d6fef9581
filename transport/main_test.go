package transport

import (
	"testing"

	"github.com/payledger/payledger/transport/apirecord"
)

// TestMain checks every response the HTTP tests saw through env.do against docs/openapi.yaml
// after the tests ran (apirecord).
func TestMain(m *testing.M) { apirecord.Main(m) }
