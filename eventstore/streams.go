package eventstore

// StreamAppend is one stream's share of a multi-stream append (a store's optional AppendStreams,
// eventstore/postgres.Store.AppendStreams): events to add to Stream if it is at Expected.
type StreamAppend struct {
	Stream   string
	Expected ExpectedVersion
	Events   []EventData
}
