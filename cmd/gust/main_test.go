package main

import (
	"os"
	"testing"
)

// TestMain doubles as gust itself for the processes gust serve --workers
// starts (os.Executable is the test binary, and a worker is told by
// workerEnv) and for the runs of gustProcess (runMainEnv).
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		main()
		return
	}
	if os.Getenv(runMainEnv) == "1" { // gustProcess: the test binary runs as gust
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
