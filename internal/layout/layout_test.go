package layout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// row is one row of the layout table: its package patterns and what they may import.
type row struct {
	packages   []string // `x`: the package x; `x/...`: x and every package below it
	imports    []string // the module's packages it may import, as patterns
	everything bool     // may import anything
	stdlibOnly bool     // imports nothing beyond the standard library
}

// pkg is what `go list -json` says of one package of the module.
type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

var backticked = regexp.MustCompile("`([^`]+)`")

// TestImportsFollowTheLayout reads the layout table of docs/architecture.md and the module's
// packages (`go list -json ./...`, test files aside: a test may import what it exercises) and
// fails on every package no row names, every import of the module's packages its row does not
// allow, and every import beyond the standard library of a row that says "standard library only".
func TestImportsFollowTheLayout(t *testing.T) {
	root := moduleRoot(t)
	rows := readTable(t, filepath.Join(root, "docs", "architecture.md"))
	module, pkgs := listPackages(t, root)
	std := map[string]bool{}
	for _, p := range pkgs {
		std[p.ImportPath] = p.Standard
	}
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue // the standard library and the module's dependencies
		}
		r, found := rowOf(rows, rel)
		if !found {
			t.Errorf("%s: no row of the layout table names it", rel)
			continue
		}
		for _, imp := range p.Imports {
			if err := r.allows(module, imp, std[imp]); err != nil {
				t.Errorf("%s imports %s: %v", rel, imp, err)
			}
		}
	}
}

// allows says whether a package of r may import imp (standard: imp is the standard library's):
// the module's packages its row names, and any other package unless the row says "standard
// library only".
func (r row) allows(module, imp string, standard bool) error {
	rel, ours := strings.CutPrefix(imp, module+"/")
	switch {
	case !ours && r.stdlibOnly && !standard:
		return errors.New("its row allows no package beyond the standard library and the module's")
	case !ours || r.everything:
		return nil
	}
	for _, pattern := range r.imports {
		if matches(pattern, rel) {
			return nil
		}
	}
	return errors.New("the layout table does not allow it")
}

// rowOf is the row whose pattern is the longest match of rel.
func rowOf(rows []row, rel string) (row, bool) {
	var best row
	longest := -1
	for _, r := range rows {
		for _, pattern := range r.packages {
			if matches(pattern, rel) && len(pattern) > longest {
				best, longest = r, len(pattern)
			}
		}
	}
	return best, longest >= 0
}

func matches(pattern, rel string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == base || strings.HasPrefix(rel, base+"/")
	}
	return rel == pattern
}

// readTable parses the table headed "| package | holds | may import |": the backticked names of
// the first and last cells; "everything" and "standard library only" in the last.
func readTable(t *testing.T, path string) []row {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	in := false
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "| package | holds | may import |"):
			in = true
		case !in || strings.HasPrefix(line, "|---"):
		case !strings.HasPrefix(line, "|"):
			in = false
		default:
			cells := strings.Split(line, "|") // "", packages, holds..., may import, ""
			first, last := cells[1], cells[len(cells)-2]
			r := row{packages: names(first), imports: names(last),
				everything: strings.Contains(last, "everything"), stdlibOnly: strings.Contains(last, "standard library only")}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no layout table (| package | holds | may import |)", path)
	}
	return rows
}

func names(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// listPackages returns the module's path (go.mod) and every package its packages build with
// (`go list -deps -json ./...`).
func listPackages(t *testing.T, root string) (string, []pkg) {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return string(m[1]), pkgs
}

// moduleRoot is the directory of the go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
