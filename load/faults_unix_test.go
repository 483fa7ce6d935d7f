//go:build unix

package load_test

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// fullBacklog returns a loopback listener with the smallest accept queue
// the kernel allows, already full: its one slot goes to the generator's
// start-up probe, and with nothing accepting, every later SYN is dropped.
func fullBacklog(t *testing.T) net.Listener {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "backlog")
	defer f.Close() // FileListener keeps a copy
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		t.Fatal(err)
	}
	return &neverAccept{Listener: ln, closed: make(chan struct{})}
}

// neverAccept is a listener whose Accept waits until it is closed.
type neverAccept struct {
	net.Listener
	closed chan struct{}
}

func (l *neverAccept) Accept() (net.Conn, error) {
	<-l.closed
	return nil, net.ErrClosed
}

func (l *neverAccept) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return l.Listener.Close()
}
