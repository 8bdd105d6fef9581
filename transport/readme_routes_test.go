package transport

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/payledger/payledger/docs"
)

// braceRE finds OpenAPI's {param}, written :param by the router.
var braceRE = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// readmeRoute is one route of the README's API overview table (docs.ReadmeRoutes).
type readmeRoute = docs.ReadmeRoute

// readmeRoutes parses the README's API overview table; a row it cannot read fails the test.
func readmeRoutes(t *testing.T, readme string) []readmeRoute {
	t.Helper()
	routes, problems := docs.ReadmeRoutes(readme)
	for _, p := range problems {
		t.Error(p)
	}
	return routes
}

// TestReadmeListsExactlyTheRoutes: the README's API overview table names every route of the
// router, and no route the router does not have.
func TestReadmeListsExactlyTheRoutes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]readmeRoute{}
	for _, r := range readmeRoutes(t, string(raw)) {
		k := r.Method + " " + r.Path
		if prev, ok := listed[k]; ok {
			t.Errorf("README.md lists %s twice (lines %d and %d)", k, prev.Line, r.Line)
		}
		listed[k] = r
	}
	e := newEnv(t, nil)
	routed := map[string]RouteInfo{}
	for _, r := range e.srv.Routes() {
		routed[r.Method+" "+r.Path] = r
	}
	var missing, extra []string
	for k := range routed {
		if _, ok := listed[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k, r := range listed {
		if _, ok := routed[k]; !ok {
			extra = append(extra, fmt.Sprintf("%s (line %d)", k, r.Line))
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("routes missing from README.md's API overview table (add one row each, e.g. \"| `GET /api/x/{id}` | access | notes |\"):\n  %s",
			strings.Join(missing, "\n  "))
	}
	if len(extra) > 0 {
		t.Errorf("README.md's API overview table names routes the router does not have:\n  %s", strings.Join(extra, "\n  "))
	}
	// The access column agrees with each route's policy.
	for k, r := range listed {
		info, ok := routed[k]
		if !ok {
			continue
		}
		if want := accessWords(info.Policy); want != "" && !strings.Contains(r.Access, want) {
			t.Errorf("README.md line %d: %s access %q should say %q (the router's policy)", r.Line, k, r.Access, want)
		}
	}
}

// accessWords is what the access column must contain for a policy.
func accessWords(p Policy) string {
	switch p.Access {
	case Developer:
		if p.Scope != "" {
			return "`" + p.Scope + "`"
		}
		return "key"
	case Admin:
		if p.Role == RoleAdmin {
			return "role admin"
		}
		return "session"
	case Cron:
		return "x-cron-secret"
	case Public:
		return "public"
	case Open:
		return "open"
	}
	return ""
}

// TestOpenAPINamesNoMissingRoute: docs/openapi.yaml describes no route the router lacks (the
// other direction is TestOpenAPICoversEveryRoute).
func TestOpenAPINamesNoMissingRoute(t *testing.T) {
	t.Parallel()
	doc, err := docs.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, nil)
	routed := map[string]bool{}
	for _, r := range e.srv.Routes() {
		routed[r.Method+" "+r.Path] = true
	}
	var extra []string
	for path, item := range doc.Paths.Map() {
		p := braceRE.ReplaceAllString(path, ":$1")
		if strings.HasSuffix(p, "/:path") {
			p = strings.TrimSuffix(p, ":path") + "*"
		}
		for method := range item.Operations() {
			if !routed[method+" "+p] {
				extra = append(extra, method+" "+path)
			}
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("docs/openapi.yaml describes routes the router does not have:\n  %s", strings.Join(extra, "\n  "))
	}
}

// TestOpenAPIRouteScopes: info.x-route-scopes of docs/openapi.yaml is the router's scope of every
// key route that requires one.
func TestOpenAPIRouteScopes(t *testing.T) {
	t.Parallel()
	doc, err := docs.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := doc.Info.Extensions["x-route-scopes"].(map[string]any)
	if !ok {
		t.Fatalf("docs/openapi.yaml info.x-route-scopes missing or not a map: %T", doc.Info.Extensions["x-route-scopes"])
	}
	documented := map[string]string{}
	for k, v := range raw {
		method, path, _ := strings.Cut(k, " ")
		documented[method+" "+braceRE.ReplaceAllString(path, ":$1")] = fmt.Sprint(v)
	}
	e := newEnv(t, nil)
	var problems []string
	for _, r := range e.srv.Routes() {
		k := r.Method + " " + r.Path
		scope, listed := documented[k]
		switch {
		case r.Policy.Access == Developer && r.Policy.Scope != "" && !listed:
			problems = append(problems, fmt.Sprintf("%s needs %s but is not in x-route-scopes", k, r.Policy.Scope))
		case listed && (r.Policy.Access != Developer || scope != r.Policy.Scope):
			problems = append(problems, fmt.Sprintf("x-route-scopes says %s needs %q; the router: access %d scope %q", k, scope, r.Policy.Access, r.Policy.Scope))
		}
		delete(documented, k)
	}
	for k := range documented {
		problems = append(problems, "x-route-scopes names "+k+", which the router does not have")
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Errorf("docs/openapi.yaml x-route-scopes disagrees with the router:\n  %s", strings.Join(problems, "\n  "))
	}
}
