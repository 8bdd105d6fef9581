package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeConfigVars are the variables the README's Configuration table documents (every name in
// a row's first cell), leaving out the rows for the tests only.
func readmeConfigVars(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, ok := strings.CutPrefix(string(raw)[strings.Index(string(raw), "\n## Configuration\n")+1:], "## Configuration\n")
	if !ok {
		t.Fatal("README: no Configuration section")
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	out := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|") // "", names, default, meaning, ...
		if !strings.HasPrefix(line, "| `") || len(cells) < 4 || strings.Contains(cells[1], "(tests)") ||
			strings.HasPrefix(strings.TrimSpace(cells[3]), "tests only") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			out[m[1]] = true
		}
	}
	return out
}

// TestReadmeConfigurationTableIsWhatServeReads (stop 64): the README's configuration table lists
// exactly the variables payledger reads (the configuration's, read at every start, and those read
// elsewhere, otherVars): a variable added without its row, or a row left for one no longer read,
// fails here.
func TestReadmeConfigurationTableIsWhatServeReads(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	vars := map[string]string{"APP_ENV": "production"} // refused after every variable is read: nothing starts
	getenv := func(k string) string { read[k] = true; return vars[k] }
	if code := run(context.Background(), []string{"migrate"}, getenv, io.Discard, io.Discard); code != 2 {
		t.Fatalf("migrate in production without its secrets: exit %d, want 2", code)
	}
	for _, name := range otherVars {
		read[name] = true
	}
	documented := readmeConfigVars(t)
	var missing, extra []string
	for name := range read {
		if !documented[name] {
			missing = append(missing, name)
		}
	}
	for name := range documented {
		if !read[name] {
			extra = append(extra, name)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("README's configuration table: read but not documented %q; documented but not read %q", missing, extra)
	}
}
