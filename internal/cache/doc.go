// Package cache holds the in-process caches of read-model rows that every instance invalidates
// (Cache), the one LISTEN connection that keeps them honest while it proves it hears its own
// probe (Invalidations), and the wake-ups of waiters on a channel (Signal, Subscriber). It knows
// no table: the read models name their channels and send their NOTIFYs.
package cache
