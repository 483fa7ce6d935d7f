//go:build race

package poll

// raceEnabled: the race detector changes what allocates; allocation checks skip.
const raceEnabled = true
