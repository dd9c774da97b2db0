//go:build cgo

// Package cgocall measures the cost of a call from Go into C, for the
// unbind that GODEBUG numabind does on the way into C (see
// docs/design/numa-p-binding.md). It needs cgo, so it is a suite of its
// own ("cgo"), not part of "all".
package cgocall

/*
static void cgocallNoop(void) {}
*/
import "C"

// Noop calls an empty C function.
func Noop() { C.cgocallNoop() }
