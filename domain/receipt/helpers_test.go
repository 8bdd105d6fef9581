package receipt

import "time"

var testNow = time.Unix(1_800_000_000, 0)
