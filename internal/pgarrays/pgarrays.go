// Package pgarrays makes pgx encode text and bytea array parameters into a buffer sized for them
// at once.
//
// pgx encodes a query's parameters into one buffer per connection, and shrinks that buffer back
// to 256 bytes before each query. The event append and the receipts written at append send tens
// of kilobytes of arrays per batch (event data, receipt states), so every batch grew the buffer
// again by doubling: about twice the parameters' size allocated and copied each time, a third of
// the bytes serve allocated per order (issue 38). An array encoded through the plan that
// AfterConnect registers first makes room for its whole encoding, then encodes exactly as pgx's
// own slice plan does.
package pgarrays

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// AfterConnect registers the sizing plans on a pool's new connection
// (pgxpool.Config.AfterConnect): serve's pools and the tests' set it.
func AfterConnect(_ context.Context, conn *pgx.Conn) error {
	register(conn.TypeMap())
	return nil
}

// register puts the sizing plans of []string and [][]byte ahead of pgx's own in m, a
// connection's type map. The bytes sent do not change.
func register(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrap}, m.TryWrapEncodePlanFuncs...)
}

// tryWrap implements pgtype.TryWrapEncodePlanFunc: the next plan is pgx's plan for the same
// values as a FlatArray, the one pgx's TryWrapSliceEncodePlan would have chosen.
func tryWrap(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	switch v := value.(type) {
	case []string:
		return &sized[string]{}, pgtype.FlatArray[string](v), true
	case [][]byte:
		return &sized[[]byte]{}, pgtype.FlatArray[[]byte](v), true
	}
	return nil, nil, false
}

// sized grows the buffer to hold the array's binary encoding, then hands the array on.
type sized[T string | []byte] struct {
	next pgtype.EncodePlan
}

func (p *sized[T]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *sized[T]) Encode(value any, buf []byte) ([]byte, error) {
	elems := value.([]T)
	return p.next.Encode(pgtype.FlatArray[T](elems), reserve(buf, encodedSize(elems)))
}

// encodedSize is an array's size in the binary format, the one pgx sends arrays in: a 12-byte
// header, 8 bytes per dimension and a 4-byte length before each element. Too small an estimate
// only costs a later growth.
func encodedSize[T string | []byte](elems []T) int {
	n := 20
	for _, e := range elems {
		n += 4 + len(e)
	}
	return n
}

// reserve returns buf with room for need more bytes, and some for the smaller parameters that
// usually follow a large one in the same query.
func reserve(buf []byte, need int) []byte {
	if cap(buf)-len(buf) >= need {
		return buf
	}
	grown := make([]byte, len(buf), len(buf)+need+need/4+1024)
	copy(grown, buf)
	return grown
}
