//go:build linux

package transport

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"golang.org/x/sys/unix"
)

func socketPair(t *testing.T) (int, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func TestPlainReadsWhatWasWrittenAndReportsWouldBlockAndEOF(t *testing.T) {
	a, b := socketPair(t)
	ca, cb := NewPlain(a), NewPlain(b)
	buf := make([]byte, 64)
	if n, err := cb.Read(buf); n != 0 || !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("empty socket: Read = %d, %v; want 0, ErrWouldBlock", n, err)
	}
	if n, err := ca.Write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	n, err := cb.Read(buf)
	if err != nil || !bytes.Equal(buf[:n], []byte("hello")) {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	unix.Shutdown(a, unix.SHUT_WR)
	if n, err := cb.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("after the peer's close: Read = %d, %v; want 0, io.EOF", n, err)
	}
	if cb.Buffered() != 0 || cb.FD() != b {
		t.Fatalf("Buffered = %d, FD = %d", cb.Buffered(), cb.FD())
	}
}

func TestPlainWriteStopsAtAFullSocket(t *testing.T) {
	a, _ := socketPair(t)
	unix.SetsockoptInt(a, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096)
	big := make([]byte, 8<<20)
	n, err := NewPlain(a).Write(big)
	if !errors.Is(err, ErrWouldBlock) || n <= 0 || n >= len(big) {
		t.Fatalf("Write of 8 MiB to an unread socket = %d, %v; want a partial write and ErrWouldBlock", n, err)
	}
}
