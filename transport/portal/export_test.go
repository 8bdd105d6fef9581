package portal

// PaymentRequest is GET /api/portal/{id}/request's answer, for the external tests (package
// portal_test, which build the service through web.Build).
type PaymentRequest = paymentRequest

// QRPNG is the QR code PNG GET /api/portal/{id}/qr answers with, for the external tests.
var QRPNG = qrPNG
