package app

import "time"

// SetFailingFor shortens how long a worker's run of failures lasts before it is stuck (a
// minute in serve), for tests outside the package; call it before the workers run.
func SetFailingFor(h *Health, d time.Duration) { h.failingFor = d }
