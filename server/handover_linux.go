//go:build linux

package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/poll"
)

// newEngineFromFiles is newEngine on inherited listening sockets: one per
// loop, or one that loop 0 accepts on for all.
func newEngineFromFiles(s *Server, files []*os.File) (*engine, error) {
	loops := s.cfg.Loops
	if len(files) != 1 && len(files) != loops {
		return nil, fmt.Errorf("server: %d inherited listeners for %d event loops: give one, or one per loop (Config.Loops)", len(files), loops)
	}
	fds := make([]int, 0, len(files))
	closeAll := func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
	var addr *net.TCPAddr
	for i, f := range files {
		fd, a, err := adoptListener(f)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("server: inherited listener %d (%s): %w", i, f.Name(), err)
		}
		if addr == nil {
			addr = a
		}
		fds = append(fds, fd)
	}
	e := &engine{srv: s, base: time.Now(), addr: addr}
	if s.cfg.LoopsOwnThreads {
		poll.SpareP(loops)
	}
	e.acceptOne = len(fds) == 1 && loops > 1
	for i := range loops {
		lnfd := -1
		if i < len(fds) {
			lnfd = fds[i]
		}
		p, err := poll.New(1024)
		if err == nil && lnfd >= 0 {
			err = p.Add(lnfd)
		}
		if err != nil {
			if p != nil {
				p.Close()
			}
			if i < len(fds) {
				for _, fd := range fds[i:] {
					unix.Close(fd)
				}
			}
			e.discard()
			return nil, fmt.Errorf("server: poll inherited listeners: %w", err)
		}
		e.loops = append(e.loops, newLoop(e, i, p, lnfd))
	}
	if s.cfg.HTTP3 {
		// UDP sockets of its own, in the predecessor's SO_REUSEPORT
		// group: new QUIC connections come here once the predecessor
		// has gone (see Config.HTTP3).
		if err := e.openHTTP3(); err != nil {
			e.discard()
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	return e, nil
}

// adoptListener returns a non-blocking duplicate of f's socket, after
// checking that it is a TCP socket that listens, and the address it is
// bound to. f itself is left as it was (its Fd method would make it
// blocking).
func adoptListener(f *os.File) (int, *net.TCPAddr, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, nil, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(raw uintptr) {
		fd, derr = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return -1, nil, err
	}
	if derr != nil {
		return -1, nil, derr
	}
	fail := func(err error) (int, *net.TCPAddr, error) {
		unix.Close(fd)
		return -1, nil, err
	}
	if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil {
		return fail(fmt.Errorf("not a socket: %w", err))
	} else if typ != unix.SOCK_STREAM {
		return fail(errors.New("not a stream (TCP) socket"))
	}
	if on, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || on == 0 {
		return fail(errors.New("a socket that does not listen"))
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fail(err)
	}
	a := sockaddrToTCP(sa)
	if a == nil {
		return fail(errors.New("not an IPv4 or IPv6 socket"))
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		return fail(err)
	}
	return fd, a, nil
}

// listenerFiles duplicates the loops' listening sockets: every loop's,
// or loop 0's alone with AcceptOne. A loop that has let its own go
// (Shutdown under way) fails it, rather than handing a successor some of
// the sockets while connections queued on the others are reset.
func (e *engine) listenerFiles() ([]*os.File, error) {
	e.lnMu.Lock()
	defer e.lnMu.Unlock()
	var files []*os.File
	fail := func(err error) ([]*os.File, error) {
		for _, f := range files {
			f.Close()
		}
		return nil, err
	}
	if e.draining.Load() || e.stopping.Load() {
		return fail(errors.New("server: ListenerFiles after Shutdown or Close: the listeners are gone"))
	}
	for _, l := range e.loops {
		if e.acceptOne && l.id > 0 {
			continue // only loop 0 listens
		}
		if l.lnfd < 0 {
			return fail(errors.New("server: ListenerFiles during Shutdown: a loop has let its listener go"))
		}
		fd, err := unix.FcntlInt(uintptr(l.lnfd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return fail(fmt.Errorf("server: duplicate listener: %w", err))
		}
		files = append(files, os.NewFile(uintptr(fd), fmt.Sprintf("gust-listener-%d", l.id)))
	}
	return files, nil
}

// markCloseOnExec sets FD_CLOEXEC on an inherited descriptor, so that it
// goes no further than this process unless it is handed over on purpose.
func markCloseOnExec(fd int) error {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
	return err
}
