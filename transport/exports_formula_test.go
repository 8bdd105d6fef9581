package transport

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
)

// TestExportDefusesFormulasBehindOtherSeparators: a spreadsheet does not always split a CSV at
// its commas. Excel in most European locales (list separator ';') splits a double-clicked .csv
// at semicolons, and reads a quote that is not at the start of its cell, and so every line break,
// literally; a tab is a separator in LibreOffice's import. A formula placed after a semicolon, a
// tab or a line break of a transactionId was written as it is and became a live cell there (a
// DDE call, here), though the comma-separated cell as a whole began harmlessly.
func TestExportDefusesFormulasBehindOtherSeparators(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	dde := `cmd|' /C calc'!A0`
	values := map[string]string{ // as the receipt stores it -> as the export writes it
		"x;=" + dde + ";":         "x;'=" + dde + ";",
		"y\t+" + dde + "\tz":      "y\t'+" + dde + "\tz",
		"w\n@SUM(1+1)*" + dde:     "w\n'@SUM(1+1)*" + dde,
		"v\r\n-1+" + dde:          "v\n'-1+" + dde, // encoding/csv reads a quoted CRLF as LF
		"u;\"=" + dde + "\";":     "u;\"'=" + dde + "\";",
		"order 7; a-b=c, @home":   "order 7; a-b=c, @home",
		"=" + dde + ";=" + dde:    "'=" + dde + ";'=" + dde,
		"t;;\t=" + dde + "\n-1+1": "t;;\t'=" + dde + "\n'-1+1",
	}
	ids := map[string]string{}
	for v := range values {
		// Recorded before stop 66 (the API now refuses a transactionId with a tab or line break).
		ids[e.legacyReceipt(t, m, v)] = v
	}
	out := e.dev(m, http.MethodGet, "/api/exports/receipts.csv", "")
	if out.Code != 200 {
		t.Fatalf("export: %d %s", out.Code, out.Body)
	}
	body := out.Body.String()
	for _, r := range readCSV(t, body)[1:] {
		if v, ok := ids[r[0]]; ok && r[12] != values[v] {
			t.Errorf("transactionId %q exported as %q, want %q", v, r[12], values[v])
		}
	}
	// The same bytes as a semicolon-separated and as a tab-separated file: no cell a formula.
	for _, sep := range []rune{';', '\t'} {
		cr := csv.NewReader(strings.NewReader(body))
		cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord = sep, true, -1
		recs, err := cr.ReadAll()
		if err != nil {
			t.Fatalf("read with %q: %v", sep, err)
		}
		for _, rec := range recs {
			for _, cell := range rec {
				if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
					t.Errorf("read with separator %q, a cell is a formula: %q", sep, cell)
				}
			}
		}
	}
}
