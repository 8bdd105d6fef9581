package commands

import "github.com/payledger/payledger/eventstore"

// The event store's vocabulary as the callers of commands see it: transport speaks to commands
// and read models only, never to the event store.
type (
	// Metadata is the envelope of the events a command appends (correlation id, actor, source).
	Metadata = eventstore.Metadata
	// AppendResult is where a command's last event landed: the version and the global position
	// that read-your-writes waits for.
	AppendResult = eventstore.AppendResult
	// Position is a place in the global event log.
	Position = eventstore.Position
)
