package docs

// The README's route table, read by the tests that hold the router to it (transport) and walk
// the real binary through it (cmd/payledger): one parser for both.

import (
	"fmt"
	"regexp"
	"strings"
)

// ReadmeRoute is one route named in the first column of the README's API overview table, with
// that row's access column.
type ReadmeRoute struct {
	Method, Path, Access string
	Line                 int
}

var (
	backtickRE = regexp.MustCompile("`([^`]*)`")
	braceRE    = regexp.MustCompile(`\{([A-Za-z]+)\}`)
)

// ReadmeRoutes parses the "API overview" table of README.md. A first column holds one or more
// backticked routes: "`GET /api/x`", "`GET`, `POST /api/y`" (methods before a path share it),
// "`GET /api/receipts/{id}`, `/api/receipts/status?receiptId=`" (a bare path takes the methods
// before it), "`GET /portal/{id}`, `GET /pay/{id}`". Query strings and "[...]" are dropped,
// {id} becomes :id, and "<...>" (static assets) the router's "*".
func ReadmeRoutes(readme string) (routes []ReadmeRoute, problems []string) {
	lines := strings.Split(readme, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "## API overview") {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, []string{`README.md has no "## API overview" section`}
	}
	var out []ReadmeRoute
	inTable := false
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "## ") {
			break
		}
		if !strings.HasPrefix(l, "|") {
			if inTable {
				break // the overview table ends; later tables (scopes) are not the route list
			}
			continue
		}
		inTable = true
		cells := splitRow(l)
		if len(cells) < 2 || cells[0] == "route" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		var pending, last []string
		for _, m := range backtickRE.FindAllStringSubmatch(cells[0], -1) {
			seg := strings.TrimSpace(m[1])
			if isHTTPMethod(seg) {
				pending = append(pending, seg)
				continue
			}
			methods := last
			path := seg
			if method, rest, ok := strings.Cut(seg, " "); ok && isHTTPMethod(method) {
				methods = append(pending, method)
				path = strings.TrimSpace(rest)
			} else if len(pending) > 0 {
				methods = pending
			}
			pending, last = nil, methods
			if !strings.HasPrefix(path, "/") || len(methods) == 0 {
				problems = append(problems, fmt.Sprintf("README.md line %d: cannot read %q as a route (want `METHOD /path`)", i+1, seg))
				continue
			}
			for _, method := range methods {
				out = append(out, ReadmeRoute{Method: method, Path: normaliseReadmePath(path), Access: cells[1], Line: i + 1})
			}
		}
		if len(pending) > 0 {
			problems = append(problems, fmt.Sprintf("README.md line %d: methods %v without a path", i+1, pending))
		}
	}
	return out, problems
}

func splitRow(l string) []string {
	l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
	// A cell may hold "\|" (escaped pipe): keep it inside the cell.
	l = strings.ReplaceAll(l, `\|`, "\x00")
	cells := strings.Split(l, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
	}
	return cells
}

func normaliseReadmePath(p string) string {
	if i := strings.IndexAny(p, "?["); i >= 0 {
		p = p[:i]
	}
	if i := strings.Index(p, "<"); i >= 0 {
		p = p[:i] + "*"
	}
	return braceRE.ReplaceAllString(p, ":$1")
}

// isHTTPMethod reports whether s is a method the table may name.
func isHTTPMethod(s string) bool {
	switch s {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD":
		return true
	}
	return false
}
