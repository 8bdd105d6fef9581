// Package panics keeps a panic in a goroutine that a background worker starts itself (a webhook
// attempt, the subscription webhook sender) from ending the process: recovered where the
// goroutine is launched, it is handed to the worker's owner through the worker's context
// (app.Health: logged with its stack, counted as the worker's failure, stuck in /healthz).
package panics

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/rs/zerolog"
)

// Handler receives a recovered panic: its value and the stack of the goroutine that panicked.
type Handler func(value any, stack []byte)

type handlerKey struct{}

// WithHandler is ctx carrying h: the panics Recover and Catch recover under it are handed to h.
func WithHandler(ctx context.Context, h Handler) context.Context {
	return context.WithValue(ctx, handlerKey{}, h)
}

// Error is a panic Catch recovered.
type Error struct {
	Value any
	Stack []byte
}

func (e *Error) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Recover, deferred directly by a goroutine (`defer panics.Recover(ctx, log)`), recovers its
// panic and hands it to ctx's handler; with none (a goroutine started for a request, not under a
// supervised worker) it is logged on log at error level with its stack.
func Recover(ctx context.Context, log zerolog.Logger) {
	if r := recover(); r != nil {
		report(ctx, log, r, debug.Stack())
	}
}

// Catch calls f and returns its panic as an *Error, handed on as Recover does (nil: f returned).
// A goroutine whose end must end its owner too (a worker's loop) returns it to the owner.
func Catch(ctx context.Context, log zerolog.Logger, f func()) error {
	err := Run(func() error { f(); return nil })
	if e, ok := err.(*Error); ok {
		report(ctx, log, e.Value, e.Stack)
	}
	return err
}

// Run calls f and returns its error, or its panic as an *Error with the panicking goroutine's
// stack, reporting nothing: the caller decides (app.Health logs a worker's panic its own way).
func Run(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Value: r, Stack: debug.Stack()}
		}
	}()
	return f()
}

func report(ctx context.Context, log zerolog.Logger, r any, stack []byte) {
	if h, ok := ctx.Value(handlerKey{}).(Handler); ok && h != nil {
		h(r, stack)
		return
	}
	log.Error().Str("panic", fmt.Sprint(r)).Str("stack", string(stack)).Msg("goroutine panicked")
}
