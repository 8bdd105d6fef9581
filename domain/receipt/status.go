package receipt

import "slices"

// Statuses is every receipt status, in the order of the lifecycle (DESIGN.md section 5): the one
// list that the API's filters, the dashboard and the payment page take.
func Statuses() []Status {
	return []Status{StatusGenerated, StatusPending, StatusPaid, StatusACHPending, StatusReconciled, StatusFailed,
		StatusRefundRequested, StatusRefunded}
}

// StatusNames is Statuses as strings.
func StatusNames() []string {
	all := Statuses()
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = string(s)
	}
	return out
}

// Settled reports whether a verified payment exists for a receipt in status s (paid, reconciled
// or in a refund).
func (s Status) Settled() bool { return slices.Contains(settled, s) }
