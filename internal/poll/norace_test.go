//go:build !race

package poll

// raceEnabled: see race_test.go.
const raceEnabled = false
