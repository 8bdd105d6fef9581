package dashboard

// What the external tests (package dashboard_test, which build the service through web.Build)
// read of the package.
const (
	DevLinkTTL = devLinkTTL
	PageSize   = dashPageSize
)

// Status is one event of the receipts list's stream.
type Status = dashStatus
