//go:build linux

package sys

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tcpPair returns both ends of a loopback TCP connection as non-blocking
// descriptors (the receiving end's) and a conn to write with.
func tcpPair(t *testing.T) (int, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	w, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	r, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.(*net.TCPConn).File() // a blocking duplicate, made non-blocking below
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fd := int(f.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	return fd, w
}

// waitReadable polls fds[0] until it has data, for at most 10 s.
func waitReadable(t *testing.T, fds []unix.PollFd) {
	t.Helper()
	if n, err := unix.Poll(fds, 10_000); err != nil || n != 1 {
		t.Fatalf("socket not readable: %d, %v", n, err)
	}
}

// stampsOn waits until what fd receives is stamped: the kernel turns its
// receive stamps on for the whole machine after the first socket asks, a
// moment later (a deferred work item).
func stampsOn(t *testing.T, fd int, w net.Conn, fds []unix.PollFd) {
	t.Helper()
	buf, oob := make([]byte, 64), make([]byte, 64)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if _, err := w.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		waitReadable(t, fds)
		_, rx, err := ReadStamped(fd, buf, oob)
		if err != nil {
			t.Fatal(err)
		}
		if rx != 0 {
			return
		}
	}
	t.Fatal("no receive stamp within 10 s")
}

// TestReadStampedGivesTheArrivalNotTheRead: a segment read 20 ms after it
// arrived carries the time it arrived (the loopback delivers it within the
// sender's write), and the read allocates nothing.
func TestReadStampedGivesTheArrivalNotTheRead(t *testing.T) {
	fd, w := tcpPair(t)
	if err := EnableRXStamps(fd); err != nil {
		t.Fatal(err)
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	stampsOn(t, fd, w, fds)
	before := time.Now()
	if _, err := w.Write([]byte("event")); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	waitReadable(t, fds)
	// The read is made late on purpose: its stamp must not move with it.
	time.Sleep(20 * time.Millisecond)
	buf, oob := make([]byte, 64), make([]byte, 64)
	read := time.Now()
	n, rx, err := ReadStamped(fd, buf, oob)
	if err != nil || string(buf[:n]) != "event" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if rx < before.UnixNano() {
		t.Errorf("stamp %s; the write began at %s (and ended at %s)", time.Unix(0, rx).Format(time.StampMicro), before.Format(time.StampMicro), after.Format(time.StampMicro))
	}
	if read.UnixNano()-rx < int64(15*time.Millisecond) {
		t.Errorf("stamp only %s before the read made 20 ms after the arrival", time.Duration(read.UnixNano()-rx))
	}
	if _, _, err := ReadStamped(fd, buf, oob); err != unix.EAGAIN {
		t.Errorf("an empty socket read %v, want EAGAIN", err)
	}
	x := []byte("x")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := w.Write(x); err != nil {
			t.Fatal(err)
		}
		waitReadable(t, fds)
		if _, rx, err := ReadStamped(fd, buf, oob); err != nil || rx == 0 {
			t.Fatalf("stamp %d, %v", rx, err)
		}
	})
	if allocs != 0 {
		t.Errorf("ReadStamped allocated %.1f times a read", allocs)
	}
}

// TestReadStampedWithoutStampsOrRoom: a socket that did not ask for stamps,
// or a read with no room for the control message, reads with stamp 0.
func TestReadStampedWithoutStampsOrRoom(t *testing.T) {
	for _, tc := range []struct {
		name   string
		enable bool
		oob    int
	}{
		{"stamps not asked for", false, 64},
		{"no room for the stamp", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fd, w := tcpPair(t)
			if tc.enable {
				if err := EnableRXStamps(fd); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Write([]byte("event")); err != nil {
				t.Fatal(err)
			}
			waitReadable(t, []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}})
			buf := make([]byte, 64)
			n, rx, err := ReadStamped(fd, buf, make([]byte, tc.oob))
			if err != nil || string(buf[:n]) != "event" || rx != 0 {
				t.Errorf("read %q, stamp %d, %v; want the data and stamp 0", buf[:n], rx, err)
			}
		})
	}
}
