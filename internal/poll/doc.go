// Package poll wraps the operating system's readiness notification (epoll on
// Linux) for gust's event loops: the load generator's and the server's.
//
// A Poller is owned by one event loop goroutine; it is not safe for
// concurrent use, except for Wake, which any goroutine may call.
//
// # Files
//
//   - poll.go: readiness flags, Event; SpareP, GOMAXPROCS above loops on their own threads
//   - poll_linux.go: Poller: edge-triggered epoll with an eventfd wake; WaitParked, WaitOwnThread
//   - poll_other.go: elsewhere New fails and callers use their portable fallback
package poll
