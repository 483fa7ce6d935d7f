//go:build !linux

package server

// drainsNow reports whether ctx's connection is one Shutdown closes now:
// the portable engine chooses none before the drain's spread is over.
func drainsNow(ctx *Ctx) bool { return false }
