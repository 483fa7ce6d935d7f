//go:build race

package load

// raceEnabled: sync.Pool drops items at random under the race detector (the
// TLS transport's record buffers come from pools), so allocation counts
// mean nothing there.
const raceEnabled = true
