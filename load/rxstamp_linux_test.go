//go:build linux

package load

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLateReadIsTimedByArrival: with kernel stamps, what a loop reads 30
// ms after it arrived is timed at its arrival; without, at the read.
func TestLateReadIsTimedByArrival(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cl, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close()
	f, err := cl.(*net.TCPConn).File()
	cl.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	l := &loop{e: &engine{base: time.Now()}, buf: make([]byte, 4096)}
	c := newConn(nil)
	c.attach(fd)
	enableRXStamps(fd)
	readable := func() {
		if n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000); err != nil || n != 1 {
			t.Fatalf("socket not readable: %d, %v", n, err)
		}
	}
	read := func(on bool) (string, int64, int64) {
		l.rx.on = on
		l.rx.turn(l.e)
		now := l.e.now()
		n, at, err := l.readFrom(c, now)
		if err != nil {
			t.Fatal(err)
		}
		return string(l.buf[:n]), at, now
	}
	// The kernel turns its stamps on for the machine a moment after the
	// first socket asks.
	for deadline := time.Now().Add(10 * time.Second); ; {
		sv.Write([]byte("x"))
		readable()
		if _, at, now := read(true); at < now {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no kernel receive stamp within 10 s")
		}
	}
	for _, on := range []bool{true, false} {
		sent := l.e.now()
		sv.Write([]byte("event"))
		readable()
		time.Sleep(30 * time.Millisecond) // the loop comes to the socket late, on purpose
		data, at, now := read(on)
		switch {
		case data != "event":
			t.Errorf("stamps %v: read %q", on, data)
		case on && (at < sent || now-at < int64(25*time.Millisecond)):
			t.Errorf("with stamps: timed %v after the write and %v before the read; want its arrival, some 30 ms before the read",
				time.Duration(at-sent), time.Duration(now-at))
		case !on && at != now:
			t.Errorf("without stamps: timed %v before the read; want the read", time.Duration(now-at))
		}
	}
}
