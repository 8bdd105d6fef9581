package eventstore

import (
	"context"
	"fmt"
	"reflect"
)

// Companion is a write that must commit atomically with an append, such as the encrypted key that
// will sign a new receipt's webhooks (a secret, so never part of an event) or a new receipt's
// read-model row (projections.ReceiptsAtAppend). An adapter whose events live in the same
// PostgreSQL database runs it in the append's own transaction (CompanionAppender); with any other
// adapter the caller writes it separately. The store itself never adds one: every companion of
// an append is an argument of that append's call.
type Companion struct {
	SQL  string
	Args []any
	// Rows says SQL takes one array per argument (an INSERT ... SELECT FROM unnest(...)) and
	// Args are one row's elements: companions with the same SQL in one commit are merged into
	// one statement whose arrays hold all their rows (MergeCompanions).
	Rows bool
	// After runs SQL after the transaction's events are inserted (it may read them); otherwise
	// it runs before.
	After bool
	// Committed, when set, is called once the transaction has committed, with the number of rows
	// SQL affected (for a merged companion, the merged statement's) and the furthest position of
	// the transaction's events.
	Committed func(affected int64, end Position)
}

// MergeCompanions returns cs with every group of Rows companions sharing an SQL text merged into
// one companion whose arguments are slices (each companion's element in order); the others are
// kept as they are. The first of a group stands where the group was.
func MergeCompanions(cs []Companion) ([]Companion, error) {
	out := make([]Companion, 0, len(cs))
	at := map[string]int{}   // SQL -> index in out of its merged companion
	rows := map[string]int{} // SQL -> rows to merge, so each column is allocated once
	for _, c := range cs {
		if c.Rows {
			rows[c.SQL]++
		}
	}
	for _, c := range cs {
		if !c.Rows {
			out = append(out, c)
			continue
		}
		i, ok := at[c.SQL]
		if !ok {
			at[c.SQL] = len(out)
			m := Companion{SQL: c.SQL, Args: make([]any, len(c.Args)), After: c.After}
			for j, a := range c.Args {
				m.Args[j] = reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(a)), 0, rows[c.SQL]).Interface()
			}
			out = append(out, m)
			i = len(out) - 1
		}
		m := &out[i]
		if c.Committed != nil {
			m.Committed = chainCommitted(m.Committed, c.Committed)
		}
		if len(c.Args) != len(m.Args) {
			return nil, fmt.Errorf("companion %q: %d arguments, %d before", c.SQL, len(c.Args), len(m.Args))
		}
		for j, a := range c.Args {
			col := reflect.ValueOf(m.Args[j])
			if reflect.TypeOf(a) != col.Type().Elem() {
				return nil, fmt.Errorf("companion %q: argument %d is %T, %s before", c.SQL, j+1, a, col.Type().Elem())
			}
			m.Args[j] = reflect.Append(col, reflect.ValueOf(a)).Interface()
		}
	}
	return out, nil
}

// chainCommitted calls a, when set, then b.
func chainCommitted(a, b func(int64, Position)) func(int64, Position) {
	if a == nil {
		return b
	}
	return func(n int64, end Position) { a(n, end); b(n, end) }
}

// CompanionAppender is implemented by adapters whose events live in the same PostgreSQL
// database as the read models: AppendWith commits companions in the append's own transaction,
// so a caller that needs a write to be atomic with its events says so at its call site (a
// command with a webhook key, the receipts projection's store decorator with a new receipt's
// row). A re-append of events already stored runs no companion. Errors are Store.Append's.
type CompanionAppender interface {
	AppendWith(ctx context.Context, stream string, expected ExpectedVersion, companions []Companion, events ...EventData) (AppendResult, error)
}
