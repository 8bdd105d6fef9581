package main

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// environ lists the environment run's getenv reads from, checked for names payledger does not
// read (unknownVars): main sets os.Environ; a test's run over a map of its own lists none.
var environ = func() []string { return nil }

// varsRead records the name of every variable its getenv is asked for: the configuration reads
// every variable it knows at start, so what it did not ask for is not payledger's.
type varsRead struct {
	getenv func(string) string
	mu     sync.Mutex
	names  map[string]bool
}

func newVarsRead(getenv func(string) string) *varsRead {
	return &varsRead{getenv: getenv, names: map[string]bool{}}
}

// get is getenv, recording name.
func (v *varsRead) get(name string) string {
	v.mu.Lock()
	v.names[name] = true
	v.mu.Unlock()
	return v.getenv(name)
}

// otherVars are read elsewhere than the configuration, or not at every start: development's data
// directory (production does not read it), the development chain's env file, Go's runtime.
var otherVars = []string{"DEV_DATA_DIR", "DEVCHAIN_ENV_FILE", "GOGC", "GOMEMLIMIT"}

// sharedPrefixes begin variables that other software reads too (a proxy's HTTP_PROXY, the
// OpenTelemetry SDK's OTEL_*, a compose file's DATABASE_HOST): a name under them that payledger
// does not read is only suspect when it is a typo of one it reads.
var sharedPrefixes = []string{"ADMIN", "APP", "AUTH", "DATABASE", "DB", "DEV", "EDGE", "ETH", "HTTP", "KEY", "LOG", "OTEL",
	"PUBLIC", "REDIS", "SITE"}

// serviceLink is the shape of the variables Kubernetes sets for every service of the namespace
// (PAYLEDGER_SERVICE_HOST, PAYLEDGER_PORT_8080_TCP_ADDR for a service named payledger).
var serviceLink = regexp.MustCompile(`_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$`)

// unknownVars are the names in env (KEY=value lines) that look meant for payledger but are not
// read by it: PAYLEDGER_*, a variable under one of its own prefixes (CHAIN_, PAYMENT_, ...), or
// a name one or two letters away from one it reads. A typo in CHAIN_OPERATOR_KEY otherwise
// started serve with split distribution off, logged only as "CHAIN_OPERATOR_KEY is unset". Each
// entry is the name, with the variable it may have meant; never a value.
func unknownVars(env []string, read map[string]bool) []string {
	known := map[string]bool{}
	prefixes := map[string]bool{"PAYLEDGER": true}
	for name := range read {
		known[name] = true
	}
	for _, name := range otherVars {
		known[name] = true
	}
	for name := range known {
		if p, _, ok := strings.Cut(name, "_"); ok && !slices.Contains(sharedPrefixes, p) {
			prefixes[p] = true
		}
	}
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" || known[name] || serviceLink.MatchString(name) {
			continue
		}
		meant := closest(name, known)
		p, _, _ := strings.Cut(name, "_")
		switch {
		case meant != "":
			out = append(out, name+" (meant "+meant+"?)")
		case strings.Contains(name, "_") && prefixes[p]:
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// closest is the known name at most two edits from name (the nearest, then the first in order),
// or "" when none is; names shorter than 6 letters are too short to tell a typo.
func closest(name string, known map[string]bool) string {
	if len(name) < 6 {
		return ""
	}
	best, bestD := "", 3
	for k := range known {
		if d := editDistance(name, k); d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes: variable names are ASCII).
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
