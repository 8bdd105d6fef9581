package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestCommittedSubsetIsCurrent: sdk/openapi.json, which both SDKs are generated from, is what
// docs/openapi.yaml gives now. CI's `make sdk` diff checks the generated code too, but needs the
// generators; this runs in `make test`, so a document change without `make sdk` fails locally.
func TestCommittedSubsetIsCurrent(t *testing.T) {
	want, err := subset()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("sdk/openapi.json is not what docs/openapi.yaml gives: run make sdk and commit sdk/")
	}
}

// TestEveryNumberIsExactInGo: every number of the subset (amounts, rates, percentages) is a
// json.Number in the Go SDK, never a float64 that rounds the service's decimals.
func TestEveryNumberIsExactInGo(t *testing.T) {
	body, err := subset()
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	numbers := 0
	var walk func(node any, at string)
	walk = func(node any, at string) {
		switch n := node.(type) {
		case []any:
			for i, v := range n {
				walk(v, fmt.Sprintf("%s/%d", at, i))
			}
		case map[string]any:
			if n["type"] == "number" {
				numbers++
				if n["x-go-type"] != "json.Number" {
					t.Errorf("%s: a number the Go SDK reads as float64", at)
				}
			}
			for k, v := range n {
				walk(v, at+"/"+k)
			}
		}
	}
	walk(doc, "")
	if numbers == 0 {
		t.Fatal("no number in the subset: the walk read nothing")
	}
}
