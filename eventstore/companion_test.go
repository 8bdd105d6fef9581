package eventstore

import (
	"reflect"
	"testing"
)

func TestMergeCompanions(t *testing.T) {
	const rows, other = "INSERT rows", "INSERT one"
	in := []Companion{
		{SQL: other, Args: []any{1}},
		{SQL: rows, Args: []any{"a", []byte{1}}, Rows: true},
		{SQL: other, Args: []any{2}},
		{SQL: rows, Args: []any{"b", []byte{2}}, Rows: true},
		{SQL: "INSERT more", Args: []any{int64(7)}, Rows: true},
	}
	got, err := MergeCompanions(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []Companion{
		{SQL: other, Args: []any{1}},
		{SQL: rows, Args: []any{[]string{"a", "b"}, [][]byte{{1}, {2}}}},
		{SQL: other, Args: []any{2}},
		{SQL: "INSERT more", Args: []any{[]int64{7}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged\n%#v\nwant\n%#v", got, want)
	}
	if _, err := MergeCompanions([]Companion{{SQL: rows, Args: []any{"a"}, Rows: true}, {SQL: rows, Args: []any{1}, Rows: true}}); err == nil {
		t.Fatal("rows of different argument types merged")
	}
	if _, err := MergeCompanions([]Companion{{SQL: rows, Args: []any{"a"}, Rows: true}, {SQL: rows, Args: []any{"a", "b"}, Rows: true}}); err == nil {
		t.Fatal("rows of different lengths merged")
	}
}
