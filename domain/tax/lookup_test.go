package tax

import (
	"errors"
	"testing"
)

// TestLookupOfPrefixedCodes: "EU-" finds EU members only; a code such as "EU-US-CA" is unknown
// (it was found as US-CA, so an order naming it was taxed at California's rate and recorded as
// US-CA).
func TestLookupOfPrefixedCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ code, want string }{
		{"US-CA", "US-CA"}, {"us-ca", "US-CA"}, {" DE ", "DE"}, {"EU-DE", "DE"}, {"eu-fr", "FR"},
		{"EU-US-CA", ""}, {"eu-us-ny", ""}, {"EU-", ""}, {"EU-EU-DE", ""}, {"EU-CA", ""},
	} {
		j, err := Lookup(tc.code)
		switch {
		case tc.want == "" && !errors.Is(err, ErrUnknownJurisdiction):
			t.Errorf("%q: found %s (%v), want unknown", tc.code, j.Code, err)
		case tc.want != "" && (err != nil || j.Code != tc.want):
			t.Errorf("%q: %s (%v), want %s", tc.code, j.Code, err, tc.want)
		}
	}
}
