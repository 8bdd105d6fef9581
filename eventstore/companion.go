package eventstore

import "context"

// Companion is a write that must commit atomically with an append, such as the encrypted key that
// will sign a new receipt's webhooks (a secret, so never part of an event). An adapter whose
// events live in the same PostgreSQL database runs it in the append's own transaction
// (CompanionWriter); with any other adapter the caller writes it separately.
type Companion struct {
	SQL  string
	Args []any
}

// CompanionWriter is implemented by adapters that run the companions of an append's context in
// the append's transaction.
type CompanionWriter interface {
	RunsCompanions() bool
}

type companionsKey struct{}

// WithCompanion returns ctx carrying c for the appends made with it.
func WithCompanion(ctx context.Context, c Companion) context.Context {
	prev := Companions(ctx)
	return context.WithValue(ctx, companionsKey{}, append(prev[:len(prev):len(prev)], c))
}

// Companions returns the companions ctx carries.
func Companions(ctx context.Context) []Companion {
	cs, _ := ctx.Value(companionsKey{}).([]Companion)
	return cs
}
