package memory_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/conformance"
	"github.com/payledger/payledger/eventstore/memory"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) eventstore.Store { return memory.New(time.Now) },
	})
}
