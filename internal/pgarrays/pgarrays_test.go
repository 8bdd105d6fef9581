package pgarrays

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestEncodesAsPgx: the bytes sent are pgx's own, for every array shape and both formats.
func TestEncodesAsPgx(t *testing.T) {
	values := map[string]any{
		"strings":       []string{`{"a":1}`, "", "with \"quotes\" and , commas", strings.Repeat("x", 5000)},
		"empty strings": []string{},
		"nil strings":   []string(nil),
		"bytes":         [][]byte{{1, 2, 3}, {}, nil, bytes.Repeat([]byte{7}, 300)},
		"nil bytes":     [][]byte(nil),
		"json bytes":    [][]byte{[]byte(`{"state":1}`), {}},
		"text bytes":    [][]byte{[]byte(`{"receipt":{}}`), []byte("x")},
	}
	oids := map[string]uint32{"strings": pgtype.TextArrayOID, "empty strings": pgtype.JSONArrayOID,
		"nil strings": pgtype.TextArrayOID, "bytes": pgtype.ByteaArrayOID, "nil bytes": pgtype.ByteaArrayOID,
		"json bytes": pgtype.JSONArrayOID, "text bytes": pgtype.TextArrayOID}
	for name, v := range values {
		for _, format := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
			plain := pgtype.NewMap()
			want, err := plain.Encode(oids[name], format, v, nil)
			if err != nil {
				t.Fatalf("%s, format %d: pgx: %v", name, format, err)
			}
			sizing := pgtype.NewMap()
			register(sizing)
			got, err := sizing.Encode(oids[name], format, v, []byte("before"))
			if err != nil {
				t.Fatalf("%s, format %d: %v", name, format, err)
			}
			if want == nil {
				if got != nil {
					t.Errorf("%s, format %d: %q, want NULL", name, format, got)
				}
				continue
			}
			if !bytes.Equal(got, append([]byte("before"), want...)) {
				t.Errorf("%s, format %d:\n got %q\nwant %q", name, format, got, want)
			}
		}
	}
}

// TestGrowsOnce: a large array grows the buffer once, where pgx alone doubles it step by step.
func TestGrowsOnce(t *testing.T) {
	data := make([]string, 10)
	for i := range data {
		data[i] = strings.Repeat("d", 1500) // a receipt's event, about
	}
	grows := func(m *pgtype.Map) float64 {
		return testing.AllocsPerRun(20, func() {
			if _, err := m.Encode(pgtype.JSONArrayOID, pgtype.BinaryFormatCode, data, make([]byte, 0, 256)); err != nil {
				t.Fatal(err)
			}
		})
	}
	plain := pgtype.NewMap()
	sizing := pgtype.NewMap()
	register(sizing)
	before, after := grows(plain), grows(sizing)
	// Either way a run allocates the starting buffer, boxes the array (twice) and pgx boxes
	// each element; the sizing plan grows the buffer once, pgx's own plan 256 B -> 16 KiB in
	// about seven steps.
	common := float64(len(data) + 3)
	if after > common+2 || before < after+4 {
		t.Fatalf("allocations per encode: %v with the sizing plan, %v without; want at most %v with it", after, before, common+2)
	}
}
