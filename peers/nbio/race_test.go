//go:build race

package main

// raceDetector: the test binary runs under the race detector.
const raceDetector = true
