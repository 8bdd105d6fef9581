// Package tax is the built-in jurisdiction tax catalog and the tax rules of order creation.
//
// Rates are statewide/national base rates with representative mandatory local components
// (2025). They are what order creation applies when a merchant names a jurisdiction and gives no
// manual rate; merchants with local obligations beyond these pass taxRate.
package tax

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// Component is one named part of a jurisdiction's rate.
type Component struct {
	Name string
	Rate money.Rate
}

// Jurisdiction is a tax jurisdiction of the catalog.
type Jurisdiction struct {
	Code       string // "US-CA", "DE"
	Name       string
	Components []Component
	// total is the sum of Components when summed: the catalog's own jurisdictions sum their rates
	// once (build), where every order summed them again through math/big (issue 38); any other
	// value (Select's, a literal) sums on each call.
	total  money.Rate
	summed bool
}

// Total is the sum of the components.
func (j Jurisdiction) Total() money.Rate {
	if j.summed {
		return j.total
	}
	var t money.Rate
	for _, c := range j.Components {
		t = t.Add(c.Rate)
	}
	return t
}

// ErrUnknownJurisdiction and ErrUnknownComponent are returned by Lookup and Select.
var (
	ErrUnknownJurisdiction = errors.New("unknown tax jurisdiction")
	ErrUnknownComponent    = errors.New("unknown tax component")
)

// Lookup finds a jurisdiction by code, case-insensitively; EU members are also found as "EU-DE".
// Only EU members: "EU-US-CA" is no jurisdiction (it was found as US-CA, and an order naming it
// was taxed and recorded as California). Errors: ErrUnknownJurisdiction.
func Lookup(code string) (Jurisdiction, error) {
	c := strings.ToUpper(strings.TrimSpace(code))
	if member, ok := strings.CutPrefix(c, "EU-"); ok && euMembers[member] {
		c = member
	}
	j, ok := byCode[c]
	if !ok {
		return Jurisdiction{}, fmt.Errorf("%w: %q", ErrUnknownJurisdiction, code)
	}
	return j, nil
}

// euMembers are the codes of euRows, the members "EU-" may prefix.
var euMembers = func() map[string]bool {
	m := make(map[string]bool, len(euRows))
	for _, r := range euRows {
		m[r.code] = true
	}
	return m
}()

// Select keeps only the named components of j (all of them when names is empty).
func Select(j Jurisdiction, names []string) (Jurisdiction, error) {
	if len(names) == 0 {
		return j, nil
	}
	out := Jurisdiction{Code: j.Code, Name: j.Name}
	for _, n := range names {
		i := slices.IndexFunc(j.Components, func(c Component) bool { return strings.EqualFold(c.Name, n) })
		if i < 0 {
			return Jurisdiction{}, fmt.Errorf("%w: %s has no component %q", ErrUnknownComponent, j.Code, n)
		}
		if !slices.ContainsFunc(out.Components, func(c Component) bool { return c.Name == j.Components[i].Name }) {
			out.Components = append(out.Components, j.Components[i])
		}
	}
	return out, nil
}

// All returns the catalog sorted by code.
func All() []Jurisdiction {
	out := make([]Jurisdiction, 0, len(byCode))
	for _, j := range byCode {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Code < out[b].Code })
	return out
}

var byCode = build()

func build() map[string]Jurisdiction {
	m := map[string]Jurisdiction{}
	for _, r := range usRows {
		j := Jurisdiction{Code: "US-" + r.code, Name: r.name}
		add := func(name, rate string) {
			if rate != "" {
				j.Components = append(j.Components, Component{Name: name, Rate: money.MustRate(rate)})
			}
		}
		add("state", r.state)
		add("county", r.county)
		add("district", r.district)
		m[j.Code] = j
	}
	for _, r := range euRows {
		m[r.code] = Jurisdiction{Code: r.code, Name: r.name, Components: []Component{{Name: "vat", Rate: money.MustRate(r.rate)}}}
	}
	for code, j := range m {
		j.total, j.summed = j.Total(), true
		m[code] = j
	}
	return m
}

type usRow struct{ code, name, state, county, district string }

// usRows: state base rates; county and district where a statewide mandatory local part exists.
var usRows = []usRow{
	{"AL", "Alabama", "0.04", "", ""}, {"AK", "Alaska", "0", "", ""}, {"AZ", "Arizona", "0.056", "", ""},
	{"AR", "Arkansas", "0.065", "", ""}, {"CA", "California", "0.06", "0.0025", "0.01"}, {"CO", "Colorado", "0.029", "", ""},
	{"CT", "Connecticut", "0.0635", "", ""}, {"DE", "Delaware", "0", "", ""}, {"DC", "District of Columbia", "0.06", "", ""},
	{"FL", "Florida", "0.06", "", ""}, {"GA", "Georgia", "0.04", "", ""}, {"HI", "Hawaii", "0.04", "", ""},
	{"ID", "Idaho", "0.06", "", ""}, {"IL", "Illinois", "0.0625", "", ""}, {"IN", "Indiana", "0.07", "", ""},
	{"IA", "Iowa", "0.06", "", ""}, {"KS", "Kansas", "0.065", "", ""}, {"KY", "Kentucky", "0.06", "", ""},
	{"LA", "Louisiana", "0.05", "", ""}, {"ME", "Maine", "0.055", "", ""}, {"MD", "Maryland", "0.06", "", ""},
	{"MA", "Massachusetts", "0.0625", "", ""}, {"MI", "Michigan", "0.06", "", ""}, {"MN", "Minnesota", "0.06875", "", ""},
	{"MS", "Mississippi", "0.07", "", ""}, {"MO", "Missouri", "0.04225", "", ""}, {"MT", "Montana", "0", "", ""},
	{"NE", "Nebraska", "0.055", "", ""}, {"NV", "Nevada", "0.046", "0.0225", ""}, {"NH", "New Hampshire", "0", "", ""},
	{"NJ", "New Jersey", "0.06625", "", ""}, {"NM", "New Mexico", "0.04875", "", ""}, {"NY", "New York", "0.04", "", "0.00375"},
	{"NC", "North Carolina", "0.0475", "0.02", ""}, {"ND", "North Dakota", "0.05", "", ""}, {"OH", "Ohio", "0.0575", "", ""},
	{"OK", "Oklahoma", "0.045", "", ""}, {"OR", "Oregon", "0", "", ""}, {"PA", "Pennsylvania", "0.06", "", ""},
	{"RI", "Rhode Island", "0.07", "", ""}, {"SC", "South Carolina", "0.06", "", ""}, {"SD", "South Dakota", "0.042", "", ""},
	{"TN", "Tennessee", "0.07", "", ""}, {"TX", "Texas", "0.0625", "", ""}, {"UT", "Utah", "0.0485", "0.0125", ""},
	{"VT", "Vermont", "0.06", "", ""}, {"VA", "Virginia", "0.043", "0.01", ""}, {"WA", "Washington", "0.065", "", ""},
	{"WV", "West Virginia", "0.06", "", ""}, {"WI", "Wisconsin", "0.05", "", ""}, {"WY", "Wyoming", "0.04", "", ""},
}

type euRow struct{ code, name, rate string }

// euRows: EU VAT standard rates.
var euRows = []euRow{
	{"AT", "Austria", "0.20"}, {"BE", "Belgium", "0.21"}, {"BG", "Bulgaria", "0.20"}, {"HR", "Croatia", "0.25"},
	{"CY", "Cyprus", "0.19"}, {"CZ", "Czechia", "0.21"}, {"DK", "Denmark", "0.25"}, {"EE", "Estonia", "0.24"},
	{"FI", "Finland", "0.255"}, {"FR", "France", "0.20"}, {"DE", "Germany", "0.19"}, {"GR", "Greece", "0.24"},
	{"HU", "Hungary", "0.27"}, {"IE", "Ireland", "0.23"}, {"IT", "Italy", "0.22"}, {"LV", "Latvia", "0.21"},
	{"LT", "Lithuania", "0.21"}, {"LU", "Luxembourg", "0.17"}, {"MT", "Malta", "0.18"}, {"NL", "Netherlands", "0.21"},
	{"PL", "Poland", "0.23"}, {"PT", "Portugal", "0.23"}, {"RO", "Romania", "0.21"}, {"SK", "Slovakia", "0.23"},
	{"SI", "Slovenia", "0.22"}, {"ES", "Spain", "0.21"}, {"SE", "Sweden", "0.25"},
}
