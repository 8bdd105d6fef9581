package projections

import "github.com/payledger/payledger/readmodels"

// AtAppendSQL is the statement that applies generations in their append's transaction.
var AtAppendSQL = readmodels.ReceiptsAtAppendSQL
