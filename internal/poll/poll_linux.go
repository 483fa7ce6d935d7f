//go:build linux

package poll

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Poller is an edge-triggered epoll instance with a wake-up eventfd.
type Poller struct {
	epfd    int
	wakefd  int
	raw     []unix.EpollEvent
	pwait2  bool // epoll_pwait2 (nanosecond timeouts, Linux 5.11+) is available
	wakeBuf [8]byte

	// For WaitParked: the epoll descriptor itself, registered with the Go
	// runtime's poller, so that a loop with nothing to do parks its
	// goroutine instead of blocking a thread in epoll_wait.
	file     *os.File
	rc       syscall.RawConn
	deadline time.Time
	// tryWait is tryWaitOnce as a func value made once: a closure built
	// in each WaitParked escaped to the heap, an allocation per park.
	tryWait func(uintptr) bool
	parkN   int
	parkErr error
}

// New creates a Poller able to report up to maxEvents events per Wait.
func New(maxEvents int) (*Poller, error) {
	if maxEvents <= 0 {
		maxEvents = 256
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	p := &Poller{epfd: epfd, wakefd: wakefd, raw: make([]unix.EpollEvent, maxEvents), pwait2: true}
	// Edge-triggered like everything else, so that a parked loop (see
	// WaitParked) is woken once per Wake, not until the counter is read.
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(wakefd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakefd, &ev); err != nil {
		p.Close()
		return nil, fmt.Errorf("epoll_ctl add eventfd: %w", err)
	}
	return p, nil
}

// Add registers fd for edge-triggered read, write and hang-up readiness.
// Registering both directions once means a loop never has to modify the
// interest set when it switches between reading and writing.
func (p *Poller) Add(fd int) error {
	ev := unix.EpollEvent{
		Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET,
		Fd:     int32(fd),
	}
	return unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev)
}

// AddRead registers fd for level-triggered read readiness only (listeners).
func (p *Poller) AddRead(fd int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	return unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev)
}

// Remove unregisters fd. Closing fd also removes it; Remove is for
// descriptors that stay open.
func (p *Poller) Remove(fd int) error {
	return unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, fd, nil)
}

// Wake makes a concurrent or later Wait return promptly. It is safe to call
// from any goroutine.
func (p *Poller) Wake() {
	one := [8]byte{1}
	unix.Write(p.wakefd, one[:])
}

// Wait blocks until at least one event is ready, the timeout passes
// (timeout < 0 waits indefinitely) or Wake is called, and appends the
// events to dst. Wake-ups are consumed and not reported.
func (p *Poller) Wait(dst []Event, timeout time.Duration) ([]Event, error) {
	n, err := p.wait(timeout)
	if err != nil {
		if err == unix.EINTR {
			return dst, nil
		}
		return dst, fmt.Errorf("epoll_wait: %w", err)
	}
	return p.convert(dst, n), nil
}

// convert appends the first n raw events to dst, consuming wake-ups.
func (p *Poller) convert(dst []Event, n int) []Event {
	for i := 0; i < n; i++ {
		raw := &p.raw[i]
		if int(raw.Fd) == p.wakefd {
			unix.Read(p.wakefd, p.wakeBuf[:])
			continue
		}
		var flags uint32
		if raw.Events&(unix.EPOLLIN|unix.EPOLLPRI) != 0 {
			flags |= Readable
		}
		if raw.Events&unix.EPOLLOUT != 0 {
			flags |= Writable
		}
		if raw.Events&(unix.EPOLLHUP|unix.EPOLLRDHUP|unix.EPOLLERR) != 0 {
			flags |= Hangup
		}
		dst = append(dst, Event{FD: raw.Fd, Flags: flags})
	}
	return dst
}

func (p *Poller) wait(timeout time.Duration) (int, error) {
	if p.pwait2 && timeout > 0 {
		ts := unix.NsecToTimespec(int64(timeout))
		r, _, errno := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(p.epfd),
			uintptr(unsafe.Pointer(&p.raw[0])), uintptr(len(p.raw)),
			uintptr(unsafe.Pointer(&ts)), 0, 0)
		if errno == 0 {
			return int(r), nil
		}
		if errno != unix.ENOSYS {
			return 0, errno
		}
		p.pwait2 = false // older kernel: fall back to millisecond timeouts
	}
	return unix.EpollWait(p.epfd, p.raw, millis(timeout))
}

// millis is timeout as epoll_wait's milliseconds: -1 (no limit) for a
// negative one, and rounded up, so that a sub-millisecond timeout does
// not spin.
func millis(timeout time.Duration) int {
	if timeout < 0 {
		return -1
	}
	return int((timeout + time.Millisecond - 1) / time.Millisecond)
}

// WaitOwnThread is Wait for a loop that owns its thread: epoll_wait
// without telling the Go scheduler, as a raw system call, until an event
// or the timeout (< 0 waits without limit). The calling goroutine keeps
// its P while it waits, so other goroutines need another (SpareP). The
// runtime's preemption signal (SIGURG, sent to a goroutine that held its
// P 10 ms, and to every P when the world stops for the collector)
// interrupts the wait: it then returns no events, and the goroutine is
// preempted at its next call.
func (p *Poller) WaitOwnThread(dst []Event, timeout time.Duration) ([]Event, error) {
	var n uintptr
	var errno syscall.Errno
	if p.pwait2 && timeout > 0 {
		// Nanoseconds: a generator's next send is due at its time, not at
		// the next millisecond.
		ts := unix.NsecToTimespec(int64(timeout))
		n, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(p.epfd),
			uintptr(unsafe.Pointer(&p.raw[0])), uintptr(len(p.raw)), uintptr(unsafe.Pointer(&ts)), 0, 0)
		if errno == unix.ENOSYS {
			p.pwait2 = false // older kernel: millisecond timeouts from now on
			return dst, nil
		}
	} else {
		n, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(p.epfd),
			uintptr(unsafe.Pointer(&p.raw[0])), uintptr(len(p.raw)), uintptr(millis(timeout)), 0, 0)
	}
	switch errno {
	case 0:
		return p.convert(dst, int(n)), nil
	case unix.EINTR:
		return dst, nil
	}
	return dst, fmt.Errorf("epoll_wait: %w", errno)
}

// WaitParked is Wait for loops that share their threads with other
// goroutines (the server's, whose handlers run on worker goroutines): when
// no event is ready it parks the calling goroutine in the Go runtime's
// poller, which wakes it when the epoll instance has events, instead of
// holding a thread and its P in a blocking epoll_wait. It returns at the
// deadline (the zero time means none) if nothing happens before.
func (p *Poller) WaitParked(dst []Event, deadline time.Time) ([]Event, error) {
	if p.rc == nil {
		if err := unix.SetNonblock(p.epfd, true); err != nil {
			return dst, fmt.Errorf("epoll nonblock: %w", err)
		}
		p.file = os.NewFile(uintptr(p.epfd), "epoll")
		rc, err := p.file.SyscallConn()
		if err != nil {
			return dst, fmt.Errorf("epoll as file: %w", err)
		}
		p.rc = rc
		p.tryWait = p.tryWaitOnce
	}
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		// Already past: the runtime would report the deadline without
		// looking at the epoll descriptor at all, and a caller whose
		// deadline stays in the past would never see an event.
		return p.Poll(dst)
	}
	if !deadline.Equal(p.deadline) {
		// Loops wait for the same wheel tick many times in a row: only a
		// new deadline costs a timer update.
		p.file.SetReadDeadline(deadline)
		p.deadline = deadline
	}
	// Read calls tryWait at once, and again each time the runtime's
	// poller says the epoll descriptor is readable.
	p.parkN, p.parkErr = 0, nil
	rerr := p.rc.Read(p.tryWait)
	n, err := p.parkN, p.parkErr
	if rerr != nil {
		if errors.Is(rerr, os.ErrDeadlineExceeded) {
			return dst, nil
		}
		return dst, fmt.Errorf("epoll park: %w", rerr)
	}
	if err != nil {
		return dst, fmt.Errorf("epoll_wait: %w", err)
	}
	return p.convert(dst, n), nil
}

// tryWaitOnce is one non-blocking epoll_wait for WaitParked; true ends
// the wait.
func (p *Poller) tryWaitOnce(uintptr) bool {
	p.parkN, p.parkErr = unix.EpollWait(p.epfd, p.raw, 0)
	return p.parkN > 0 || (p.parkErr != nil && p.parkErr != unix.EINTR)
}

// Poll returns the events ready now, without waiting.
func (p *Poller) Poll(dst []Event) ([]Event, error) {
	for {
		n, err := unix.EpollWait(p.epfd, p.raw, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return dst, fmt.Errorf("epoll_wait: %w", err)
		}
		return p.convert(dst, n), nil
	}
}

// Close releases the epoll instance and the wake-up descriptor.
func (p *Poller) Close() error {
	unix.Close(p.wakefd)
	if p.file != nil {
		return p.file.Close()
	}
	return unix.Close(p.epfd)
}
