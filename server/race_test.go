//go:build race

package server

// raceEnabled: the race detector changes what memory costs; measurements skip.
const raceEnabled = true
