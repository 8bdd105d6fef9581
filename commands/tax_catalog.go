package commands

import "github.com/payledger/payledger/domain/tax"

// TaxJurisdiction is a jurisdiction of the tax catalog with its rate components.
type TaxJurisdiction = tax.Jurisdiction

// TaxCatalog returns the jurisdictions an order may name (jurisdictionCode), so that the API
// lists exactly what orders accept.
func TaxCatalog() []TaxJurisdiction { return tax.All() }
