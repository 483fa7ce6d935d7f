//go:build linux

package server

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/poll"
)

// engine is the Linux event-loop engine: one listener per loop, bound with
// SO_REUSEPORT so the kernel spreads new connections over the loops, or
// (AcceptOne) one listener whose loop hands connections round-robin to
// the others.
type engine struct {
	srv   *Server
	addr  net.Addr
	loops []*loop
	base  time.Time

	stopping atomic.Bool
	draining atomic.Bool
	// lnMu guards the loops' listening sockets between a loop closing its
	// own and ListenerFiles duplicating them for a successor.
	lnMu sync.Mutex
	// listening counts the loops' listening sockets still open: Shutdown
	// trusts "no connection open" only once it is 0, since a loop accepts
	// until it closes its own.
	listening atomic.Int32

	acceptOne bool // AcceptOne with more than one loop: loop 0 accepts for all
	nextLoop  int  // where loop 0 sends the next connection (only it touches this)

	// running counts the goroutines running loops: one per loop, and
	// for a moment two when a loop moves to a new goroutine (Auto mode).
	running sync.WaitGroup
	wd      *watchdog // Auto mode's
}

// pickLoop returns the loop that should own a connection accepted by l.
func (e *engine) pickLoop(l *loop) *loop {
	if !e.acceptOne {
		return l
	}
	e.nextLoop = (e.nextLoop + 1) % len(e.loops)
	return e.loops[e.nextLoop]
}

func newEngine(s *Server, addr string) (*engine, error) {
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	e := &engine{srv: s, base: time.Now()}
	if s.cfg.LoopsOwnThreads {
		poll.SpareP(s.cfg.Loops)
	}
	if tcp.Port != 0 && !s.cfg.SharePort {
		if err := portIsFree(tcp); err != nil {
			return nil, fmt.Errorf("listen %s: %w", addr, err)
		}
	}
	e.acceptOne = s.cfg.Acceptor == AcceptOne && s.cfg.Loops > 1
	for i := 0; i < s.cfg.Loops; i++ {
		lnfd, bound, err := -1, tcp, error(nil)
		if i == 0 || !e.acceptOne {
			lnfd, bound, err = listenReusePort(tcp)
		}
		if err == nil && i == 0 {
			tcp = bound // later loops bind the port the first one got
			e.addr = bound
		}
		var p *poll.Poller
		if err == nil {
			p, err = poll.New(1024)
			if err == nil && lnfd >= 0 {
				err = p.Add(lnfd)
			}
		}
		if err != nil {
			if lnfd > 0 {
				unix.Close(lnfd)
			}
			for _, l := range e.loops {
				l.closeListener()
				l.poller.Close()
			}
			return nil, fmt.Errorf("listen %s: %w", addr, err)
		}
		e.loops = append(e.loops, newLoop(e, i, p, lnfd))
	}
	if s.cfg.HTTP3 {
		if err := e.openHTTP3(); err != nil {
			e.discard()
			return nil, fmt.Errorf("listen %s: %w", addr, err)
		}
	}
	return e, nil
}

// portIsFree binds a's port without SO_REUSEPORT, and lets it go: with
// SO_REUSEPORT alone, a second server started on a port already served
// by another would bind it too, and the two would split the clients.
func portIsFree(a *net.TCPAddr) error {
	fd, err := bindSocket(a, false)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// listenReusePort returns a listening socket on a, bound with SO_REUSEPORT
// so that every loop can have one on the same port.
func listenReusePort(a *net.TCPAddr) (int, *net.TCPAddr, error) {
	fd, err := bindSocket(a, true)
	if err != nil {
		return -1, nil, err
	}
	if err := unix.Listen(fd, 65535); err != nil { // the kernel caps it at somaxconn
		unix.Close(fd)
		return -1, nil, err
	}
	got, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return -1, nil, err
	}
	return fd, sockaddrToTCP(got), nil
}

// bindSocket returns a non-blocking TCP socket bound to a. An address
// without a host (":8080") binds every address, IPv6 and IPv4 alike when
// the system has IPv6, as net.Listen does.
func bindSocket(a *net.TCPAddr, reusePort bool) (int, error) {
	family, sa := unix.AF_INET, unix.Sockaddr(nil)
	dualStack := a.IP == nil || a.IP.Equal(net.IPv6unspecified)
	if ip4 := a.IP.To4(); ip4 != nil && !dualStack {
		s4 := &unix.SockaddrInet4{Port: a.Port}
		copy(s4.Addr[:], ip4)
		sa = s4
	} else {
		s6 := &unix.SockaddrInet6{Port: a.Port}
		copy(s6.Addr[:], a.IP.To16())
		family, sa = unix.AF_INET6, s6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil && dualStack && family == unix.AF_INET6 {
		// No IPv6 here: every IPv4 address will do.
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: a.Port}
		fd, err = unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	}
	if err != nil {
		return -1, err
	}
	if family == unix.AF_INET6 && dualStack {
		unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0)
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if reusePort {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("SO_REUSEPORT: %w", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func sockaddrToTCP(sa unix.Sockaddr) *net.TCPAddr {
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(sa.Addr[:]).To16(), Port: sa.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(sa.Addr[:]), Port: sa.Port}
	}
	return nil
}

// now is the loops' clock: monotonic nanoseconds since the engine started.
func (e *engine) now() int64 { return int64(time.Since(e.base)) }

func (e *engine) run() error {
	if e.srv.cfg.Mode == Auto {
		e.wd = newWatchdog(e)
		go e.wd.run()
	}
	for _, l := range e.loops {
		e.running.Add(1)
		go l.serveOn(l.seat)
	}
	e.running.Wait()
	if e.wd != nil {
		close(e.wd.done)
	}
	errs := make([]error, len(e.loops))
	for i, l := range e.loops {
		errs[i] = l.err
	}
	return errors.Join(errs...)
}

// errLoopExited is Serve's error when an Inline handler ended its loop's
// goroutine.
var errLoopExited = errors.New("server: a handler called runtime.Goexit on an event loop (Inline mode); such handlers need Pooled mode")

// exited cleans up after a handler called runtime.Goexit on the loop's
// goroutine (Inline mode), which ends it: the request gets what serve
// left for it (a 500), best effort, and the loop's listener and
// connections are closed so that no client waits for a dead loop. The
// error it returns takes the server down.
func (l *loop) exited(st *seat) error {
	if c, ok := st.ctx.peer.(*conn); ok && st.ctx.exited && c.state.Load() == stIdle {
		c.t.Write(st.ctx.exitOut)
	}
	l.shutdownAll()
	return errLoopExited
}

// beginShutdown closes the listeners and idle connections.
func (e *engine) beginShutdown() {
	e.draining.Store(true)
	e.closeIdle()
}

// drained reports whether every loop has closed its listening socket, so
// that no connection can be accepted any more.
func (e *engine) drained() bool { return e.listening.Load() == 0 }

// closeIdle asks every loop to close its idle connections.
func (e *engine) closeIdle() {
	for _, l := range e.loops {
		l.closeIdleReq.Store(true)
		l.wake()
	}
}

// stop makes every loop close everything and return.
func (e *engine) stop() {
	e.stopping.Store(true)
	for _, l := range e.loops {
		l.wake()
	}
}

// discard releases the listeners and pollers of an engine that never ran.
func (e *engine) discard() {
	e.closeHTTP3()
	for _, l := range e.loops {
		l.closeListener()
		l.poller.Close()
	}
}
