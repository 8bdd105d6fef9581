package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/receipt"
)

// Shared checks of request values: query parameters and JSON fields read one by one.

// intParam reads an integer query parameter within [lo, hi]; absent gives def.
func intParam(c echo.Context, name string, def, lo, hi int) (int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, InvalidInput(fmt.Sprintf("%s must be an integer from %d to %d", name, lo, hi))
	}
	return n, nil
}

// nullable is s, or null when empty.
// maxSearchText bounds a search's text (inventory's and the users search's q): it is matched by
// ILIKE against every row scanned, the pattern lowered per row (one of 100 KB held the database
// 20 s over 5,000 items), and no name, SKU or handle it could match is longer.
const maxSearchText = 200

// checkSearchText refuses the search text v of the parameter name past maxSearchText characters.
func checkSearchText(name, v string) error {
	if utf8.RuneCountInString(v) > maxSearchText {
		return InvalidInput(name + " must be at most " + strconv.Itoa(maxSearchText) + " characters")
	}
	return nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func str(raw json.RawMessage, max int) (string, error) {
	var v string
	if json.Unmarshal(raw, &v) != nil || isNull(raw) {
		return "", errors.New("must be a string")
	}
	if len(v) > max {
		return "", fmt.Errorf("must be at most %d characters", max)
	}
	return v, nil
}

func enum(raw json.RawMessage, allowed []string) (string, error) {
	var v string
	if json.Unmarshal(raw, &v) != nil || isNull(raw) || !slices.Contains(allowed, v) {
		return "", errors.New("must be one of " + strings.Join(allowed, ", "))
	}
	return v, nil
}

// percent reads an exact decimal percentage between 0 and max.
func percent(raw json.RawMessage, max int64) (json.Number, error) {
	var n json.Number
	if t := bytes.TrimSpace(raw); len(t) == 0 || (t[0] != '-' && (t[0] < '0' || t[0] > '9')) {
		return "", errors.New("must be a number") // json.Number would take "12" too
	}
	if checkNumber(string(bytes.TrimSpace(raw))) != nil {
		return "", errors.New("must be a finite number")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return "", errors.New("must be a number")
	}
	r, ok := new(big.Rat).SetString(n.String())
	if !ok || r.Sign() < 0 || r.Cmp(big.NewRat(max, 1)) > 0 {
		return "", fmt.Errorf("must be a number from 0 to %d (percent)", max)
	}
	return n, nil
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// errBadText is the answer to a path or query value PostgreSQL could not take as text.
var errBadText = InvalidInput("the path and query values must be valid UTF-8 without NUL characters")

// textOnly refuses a request whose decoded path or any query name or value holds a NUL byte or
// invalid UTF-8, before any handler sees it: PostgreSQL refuses such a string (SQLSTATE 22021),
// which surfaced as 500 on every route that looks a path or query value up.
func textOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := c.Request().URL
		if !cleanText(u.Path) {
			return errBadText
		}
		if u.RawQuery != "" {
			q, _ := url.ParseQuery(u.RawQuery) // what does not parse, no handler sees either
			for k, vs := range q {
				if !cleanText(k) {
					return errBadText
				}
				for _, v := range vs {
					if !cleanText(v) {
						return errBadText
					}
				}
			}
		}
		return next(c)
	}
}

func cleanText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// maxURLLength bounds the links an order or receipt carries (redirect_url, successUrl,
// webhook_url): what browsers and proxies take; a longer one is no link anyone can follow.
const maxURLLength = 2048

// checkLinks refuses an order's or receipt's link longer than maxURLLength (parseOptional checks
// their shape): each is stored in the receipt's event and sent with its webhooks.
func checkLinks(g *receipt.Generated) error {
	for _, l := range []struct{ name, url string }{{"redirect_url", g.RedirectURL}, {"successUrl", g.SuccessURL}, {"webhook_url", g.WebhookURL}} {
		if len(l.url) > maxURLLength {
			return InvalidInput(fmt.Sprintf("%s must be at most %d characters", l.name, maxURLLength))
		}
	}
	return nil
}
