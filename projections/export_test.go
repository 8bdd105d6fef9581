package projections

// AtAppendSQL is the statement that applies generations in their append's transaction.
var AtAppendSQL = atAppendSQL
