package receipt_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// TestEveryEventShapeStillDecodes: every shape the receipt event structs have had decodes into
// today's structs and keeps every field it had. Events are kept for ever and folded again by every
// load and rebuild, so a field is only ever added (docs/events/README.md). testdata/event_shapes.jsonl
// holds one line per type and set of fields, every field set, as the structs of the named commit
// wrote it (the oldest with that shape, among the 80 commits that changed domain/receipt up to
// stop 63). A change that fails this needs a new event type, not an edit of the old one.
func TestEveryEventShapeStillDecodes(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/event_shapes.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	n := 0
	for lines.Scan() {
		var row struct {
			Commit string          `json:"commit"`
			Type   string          `json:"type"`
			Data   json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(lines.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		n++
		e, err := receipt.Decode(row.Type, row.Data)
		if err != nil {
			t.Errorf("%s as of %s: %v", row.Type, row.Commit, err)
			continue
		}
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var was, is any
		if err := json.Unmarshal(row.Data, &was); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(again, &is); err != nil {
			t.Fatal(err)
		}
		if lost := lostFields(row.Type, was, is); len(lost) > 0 {
			t.Errorf("%s as of %s decodes without %v", row.Type, row.Commit, lost)
		}
	}
	if err := lines.Err(); err != nil || n < 36 {
		t.Fatalf("read %d shapes (%v), want at least 36", n, err)
	}
}

// lostFields lists the paths of was (a decoded JSON value) that is does not hold alike.
func lostFields(path string, was, is any) []string {
	switch w := was.(type) {
	case map[string]any:
		m, ok := is.(map[string]any)
		if !ok {
			return []string{path}
		}
		var lost []string
		for k, v := range w {
			lost = append(lost, lostFields(path+"."+k, v, m[k])...)
		}
		return lost
	case []any:
		l, ok := is.([]any)
		if !ok || len(l) != len(w) {
			return []string{path}
		}
		var lost []string
		for i := range w {
			lost = append(lost, lostFields(fmt.Sprintf("%s[%d]", path, i), w[i], l[i])...)
		}
		return lost
	default:
		if !reflect.DeepEqual(was, is) {
			return []string{path}
		}
		return nil
	}
}
