package server

// dispatcher says where a handler's work runs, for every protocol: an
// HTTP/1.1 request (step), an HTTP/2 stream (h2conn.dispatch), a
// WebSocket message (WSConn's callbacks); HTTP/3 streams are to go
// through it too. Config.Mode picks the implementation a loop's seat
// holds: runHere for Inline (and for a worker, which runs what it has
// where it is), pooled for Pooled, and the seat itself for Auto
// (auto_linux.go), which starts work on the loop under the watchdog's
// budget and sends the routes it learned wait to workers up front.
type dispatcher interface {
	// toWorker reports whether the work for path goes to a worker
	// before it starts. Auto remembers path's route for enter.
	toWorker(path []byte) bool
	// offLoop reports whether work can leave the loop at all: a request
	// whose body is still arriving then goes to a worker, which reads
	// the body as the handler goes, rather than waiting on the loop.
	offLoop() bool
	// watched reports whether work on the loop is watched against a
	// budget and may be moved off it (Auto): HTTP/2 streams then start
	// at the end of the turn, WebSocket messages are handed to the
	// watchdog one at a time, and a handler about to wait on the network
	// (Flush, Hijack) is moved off with moveOff.
	watched() bool
	// enter and leave bracket work on the loop; leave reports false if
	// the work outlived its budget and the loop went on without it.
	enter()
	leave() bool
	// moveOff moves the handler running on the loop off it at once, its
	// Ctx given the connection as its sink (Flush, Hijack). Only a
	// watched dispatcher is asked.
	moveOff(c *Ctx)
}

// runHere runs all work where it is asked: on the loop in Inline mode,
// on the worker that has it otherwise.
type runHere struct{}

func (runHere) toWorker([]byte) bool { return false }
func (runHere) offLoop() bool        { return false }
func (runHere) watched() bool        { return false }
func (runHere) enter()               {}
func (runHere) leave() bool          { return true }
func (runHere) moveOff(*Ctx)         {}

// pooled sends all work to workers (Pooled mode).
type pooled struct{}

func (pooled) toWorker([]byte) bool { return true }
func (pooled) offLoop() bool        { return true }
func (pooled) watched() bool        { return false }
func (pooled) enter()               {}
func (pooled) leave() bool          { return true }
func (pooled) moveOff(*Ctx)         {}

// dispatcherOf returns the dispatcher of a loop's seat in mode; Auto's
// is the seat itself (auto is nil where there are no seats).
func dispatcherOf(mode Mode, auto dispatcher) dispatcher {
	switch mode {
	case Pooled:
		return pooled{}
	case Auto:
		if auto != nil {
			return auto
		}
	}
	return runHere{}
}
