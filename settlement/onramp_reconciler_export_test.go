package settlement

import "context"

// Pass runs one pass of the reconciler, as Run does at each tick.
func (r *OnrampReconciler) Pass(ctx context.Context) { r.pass(ctx) }
