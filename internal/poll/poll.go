package poll

import (
	"errors"
	"runtime"
)

// Event flags, as reported in Event.Flags.
const (
	// Readable means the descriptor has data to read or a pending error.
	Readable uint32 = 1 << iota
	// Writable means the descriptor accepts writes (or a connect finished).
	Writable
	// Hangup means the peer closed its side or the descriptor failed.
	Hangup
)

// Event is one readiness notification: which descriptor and what it is ready for.
type Event struct {
	FD    int32
	Flags uint32
}

// ErrUnsupported is returned by New on platforms without an event-loop poller.
var ErrUnsupported = errors.New("poll: event loop not supported on this platform")

// SpareP raises GOMAXPROCS to loops + 1 if it is lower: each of loops
// waiting in WaitOwnThread holds its P, and everything else in the
// process (workers, timers, the collector) needs one.
func SpareP(loops int) {
	if runtime.GOMAXPROCS(0) <= loops {
		runtime.GOMAXPROCS(loops + 1)
	}
}
