package main

import (
	"os"
	"testing"
)

// TestMain doubles as gust itself for the processes gust serve --workers
// starts: os.Executable is the test binary, and a worker is told by
// workerEnv.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		main()
		return
	}
	os.Exit(m.Run())
}
