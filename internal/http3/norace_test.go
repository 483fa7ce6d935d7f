//go:build !race

package http3

// raceEnabled: see race_test.go.
const raceEnabled = false
