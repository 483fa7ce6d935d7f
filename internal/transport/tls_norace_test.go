//go:build !race

package transport

// raceEnabled: see tls_race_test.go.
const raceEnabled = false
