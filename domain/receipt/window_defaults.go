package receipt

import "time"

// The payment window's defaults (DESIGN 9), the one place configuration and the window process
// take them from: a receipt may be paid for DefaultPaymentWindow (PAYMENT_WINDOW) after its
// creation, and its deposit stays watched for DefaultMonitorWindow (PAYMENT_MONITOR_WINDOW) after
// that (a late payment) and after it is paid (later transfers).
const (
	DefaultPaymentWindow = time.Hour
	DefaultMonitorWindow = 24 * time.Hour
)
