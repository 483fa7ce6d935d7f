//go:build !race

package load

// raceEnabled: see tls_race_test.go.
const raceEnabled = false
