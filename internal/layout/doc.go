// Package layout holds the test that keeps the module's imports to the layout table of
// docs/architecture.md (layout_test.go); it has no code of its own.
package layout
