package server

import (
	"crypto/tls"
	"log"
	"runtime"
	"time"

	"github.com/gust-http/gust/internal/http1"
)

// Mode says where handlers run.
type Mode uint8

const (
	// Auto starts each handler on its event loop, as Inline does; one
	// still running after Config.HandlerBudget gives the loop to a fresh
	// goroutine, so the loop's other connections go on, and finishes its
	// own response as a worker would. The loop learns which routes (a hash
	// of the path) wait (two handlers in a row moved off) and sends their
	// requests to workers up front, as Pooled does, trying one on the loop
	// now and then in case the route became fast. HTTP/2 streams are
	// dispatched the same way, one by one (a stream whose handler is moved
	// off leaves its connection with the loop), except that an HTTPHandler
	// stream whose request body is still arriving when the loop starts it
	// goes to a worker, as an HTTP/1.1 body still arriving does. Handlers
	// may block. This is the default, for native handlers and HTTPHandler
	// alike.
	Auto Mode = iota
	// Pooled runs each request's handler on a worker goroutine from a pool
	// whose size follows the number of requests in flight. Handlers may
	// block.
	Pooled
	// Inline runs handlers on the event loop. A handler that blocks stalls
	// every connection of its loop: use it only for handlers that never wait.
	// A handler that calls runtime.Goexit ends its loop's goroutine: its
	// request gets a 500, then the server closes every connection and
	// Serve returns an error. HTTPHandler cannot run Inline.
	Inline
)

// String returns "auto", "pooled" or "inline".
func (m Mode) String() string {
	switch m {
	case Inline:
		return "inline"
	case Pooled:
		return "pooled"
	}
	return "auto"
}

// Acceptor is how new connections are spread over the event loops.
type Acceptor uint8

const (
	// AcceptReusePort gives every loop a listener of its own on the same
	// port (SO_REUSEPORT); the kernel spreads connections by a hash of
	// their addresses, and no loop hands anything to another.
	AcceptReusePort Acceptor = iota
	// AcceptOne has one listener, on the first loop, which hands the
	// connections it accepts to the loops in turn.
	AcceptOne
)

// String returns "reuseport" or "one".
func (a Acceptor) String() string {
	if a == AcceptOne {
		return "one"
	}
	return "reuseport"
}

// Config holds a Server's settings. The zero value of every field is a
// sensible default, documented on the field.
type Config struct {
	// Loops is the number of event loops. Zero means GOMAXPROCS.
	Loops int
	// Acceptor says how new connections reach the loops (Linux; with one
	// loop both are the same). Zero means AcceptReusePort.
	Acceptor Acceptor
	// Mode says where handlers run. The zero value is Auto.
	Mode Mode
	// LoopsOwnThreads makes each loop wait for events in epoll_wait on
	// its own thread, unseen by the Go scheduler, as nginx's workers do,
	// instead of parking in the runtime's poller (Linux engine). A parked
	// loop costs the runtime a hand-off each time it sleeps and a wake-up
	// (of its thread and of the scheduler's monitor) each time it wakes:
	// serving 10 MiB files at 200 connections, about 15% of the server's
	// CPU (docs/BENCHMARKS.md). The price is a P per loop, held while it
	// waits: Listen raises GOMAXPROCS to Loops + 1 if it is lower, so that
	// everything else (workers, timers, the collector) has a P of its own,
	// and the loops should then be Inline or have little else to run. An
	// idle loop still wakes each time the runtime preempts it (its signal
	// ends the wait: every 10-20 ms, about 50 times a second here) and at
	// each tick of its timer wheel; with GODEBUG=asyncpreemptoff=1 a
	// collection waits for the tick (at most 100 ms).
	LoopsOwnThreads bool
	// MaxWorkers caps the worker goroutines running handlers at once in
	// Pooled and Auto modes; requests beyond it wait in a queue, in order,
	// and are never dropped. In Auto mode it also caps the handlers that
	// outlived their budget on a loop and are finishing on the goroutine
	// they started on: past it, a loop waits for its handler as Inline
	// does. Zero means 1,000,000.
	MaxWorkers int
	// HandlerBudget is how long a handler may run on its loop in Auto mode
	// before the loop goes on without it: a handler is moved off between
	// half the budget and the budget after it started (a watchdog looks
	// every half budget). Zero means DefaultHandlerBudget.
	HandlerBudget time.Duration

	// ReadHeaderTimeout bounds the time from a request's first byte (or the
	// connection's start) to the end of its head. Zero means 10s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, head and body, from its
	// first byte. Zero means 60s.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a response once the server has started
	// to write it. Zero means 30s.
	WriteTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle for this long. Zero
	// means 120s.
	IdleTimeout time.Duration
	// DrainSpread is how long Shutdown takes to close the keep-alive
	// connections (and to send HTTP/2's GOAWAYs): a share of them every
	// 10 ms, so that their clients reconnect, to a successor in an
	// upgrade, a few at a time rather than all in the same instant. The
	// others serve as before until their turn: an HTTP/1.1 response says
	// Connection: close on a connection chosen, and on every one once the
	// spread is over. Zero means DefaultDrainSpread; a negative value
	// closes them all at once.
	DrainSpread time.Duration

	// MaxHeaderBytes bounds a request's head; larger heads get 431 (414
	// when the limit falls inside the request-target, 501 inside the
	// method). Zero means 64 KiB.
	MaxHeaderBytes int
	// MaxBodyBytes bounds a request's body; larger bodies get 413 without
	// being read whole. Zero means 8 MiB.
	MaxBodyBytes int64
	// MaxConns closes connections beyond this many at once as soon as they
	// are accepted. Zero means no limit.
	MaxConns int

	// SharePort lets other processes (and other Servers) listen on the
	// same port, the kernel spreading connections among them
	// (SO_REUSEPORT), as a prefork does. By default Listen fails if the
	// port is already in use, as net.Listen does. Linux only: elsewhere
	// the port is never shared.
	SharePort bool

	// TLS, if set, makes the server speak HTTPS: every connection does a
	// TLS handshake (crypto/tls, bounded by ReadHeaderTimeout) before its
	// first request. It must hold a certificate (Certificates or
	// GetCertificate); it is cloned by Listen. NextProtos empty means ALPN
	// offers "h2" then "http/1.1" when HTTP2.OverTLS is set, "http/1.1"
	// alone otherwise; "h2" is removed from a NextProtos of your own
	// unless HTTP2.OverTLS is set. A client that sends plain HTTP gets a
	// 400 and a close, as from net/http. Nil means plain HTTP.
	TLS *tls.Config
	// HTTP3 also serves HTTP/3 (QUIC version 1, RFC 9114) on UDP at the
	// TLS port, one socket per loop (SO_REUSEPORT), the QUIC connections
	// on the loops beside the TCP ones (Linux engine); it needs TLS, whose
	// certificates it uses, and HTTP/1.1 and HTTP/2 responses advertise
	// it with Alt-Svc. Handlers run on the loop in Inline mode and on
	// workers in Auto and Pooled modes; a request's body is gathered
	// before its handler starts (up to MaxBodyBytes). A server started
	// by ListenFiles opens UDP sockets of its own, in its predecessor's
	// SO_REUSEPORT group: while both run, the kernel may send a
	// predecessor's connection to the successor, which answers with a
	// stateless reset, and the client reconnects (its client accepts the
	// reset only if both servers share HTTP3Secret). Off by default.
	HTTP3 bool
	// HTTP3Secret, if set (32 bytes or more, kept secret), is what the
	// keys of HTTP/3's stateless resets and address validation tokens
	// derive from: servers that share it (a successor after an upgrade,
	// processes sharing the port) answer each other's clients in ways
	// those accept. Nil: random keys for this server alone.
	HTTP3Secret []byte
	// H2C accepts HTTP/2 with prior knowledge (h2c) beside HTTP/1.1: a
	// connection whose first bytes are the HTTP/2 client preface is served
	// as HTTP/2 (Linux engine). The HTTP/1.1 Upgrade to h2c is not
	// supported (RFC 9113 deprecates it): such requests are answered as
	// HTTP/1.1. Off by default, as in net/http.
	H2C bool
	// HTTP2 holds HTTP/2's limits.
	HTTP2 HTTP2Config

	// ErrorLog receives handler panics, accept errors and failed TLS
	// handshakes (not those of a client that closed before sending a
	// byte). Nil means the log package's standard logger.
	ErrorLog *log.Logger
}

// Defaults for Config's zero values.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 60 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultDrainSpread       = 250 * time.Millisecond
	DefaultMaxBodyBytes      = 8 << 20
	DefaultMaxWorkers        = 1_000_000
	// DefaultHandlerBudget is Auto mode's HandlerBudget: long enough that
	// a hello-world handler (about 1 us) or a computation of a few hundred
	// microseconds never leaves its loop, and that the watchdog's ticks
	// (every 250 us, only while handlers run) cost little: in-process
	// (BenchmarkKeepAlive64, 64 connections, one loop) a 200 us budget
	// cost about 9% more CPU per request than Inline, 500 us about 3-4%.
	// A loop whose handler waits is stalled at most this long, and only
	// until its route is learned.
	DefaultHandlerBudget = 500 * time.Microsecond
)

func (c Config) withDefaults() Config {
	if c.Loops <= 0 {
		c.Loops = runtime.GOMAXPROCS(0)
	}
	if c.MaxWorkers <= 0 {
		c.MaxWorkers = DefaultMaxWorkers
	}
	if c.HandlerBudget <= 0 {
		c.HandlerBudget = DefaultHandlerBudget
	}
	if c.ReadHeaderTimeout <= 0 {
		c.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.DrainSpread == 0 {
		c.DrainSpread = DefaultDrainSpread
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = http1.DefaultMaxHead
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.ErrorLog == nil {
		c.ErrorLog = log.Default()
	}
	return c
}

func (c *Config) limits() http1.Limits {
	return http1.Limits{MaxHeadBytes: c.MaxHeaderBytes}
}
