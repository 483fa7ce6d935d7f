//go:build linux

package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// serverSocket finds, among this process's descriptors, the server's end
// of client: the socket whose peer is client's local address. A dial
// returns before the server has accepted: the search is repeated until
// the loop has (within 5 s).
func serverSocket(t *testing.T, client net.Conn) int {
	t.Helper()
	want := client.LocalAddr().(*net.TCPAddr)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if fd := socketWithPeer(t, want); fd >= 0 {
			return fd
		}
	}
	t.Fatal("the server's socket for the client was not found within 5 s")
	return -1
}

// socketWithPeer returns the descriptor of this process's socket whose
// peer is want, or -1.
func socketWithPeer(t *testing.T, want *net.TCPAddr) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		sa, err := unix.Getpeername(fd)
		if err != nil {
			continue
		}
		if in4, ok := sa.(*unix.SockaddrInet4); ok && in4.Port == want.Port && net.IP(in4.Addr[:]).Equal(want.IP) {
			return fd
		}
	}
	return -1
}

// TestLargeFileCorksItsSocketAndUncorksAtTheEnd: a file body of
// corkAbove or more goes out with the socket corked (full segments, as
// nginx's tcp_nopush), and the socket is uncorked once the body is out,
// so that nothing is held back from the next response; a small file is
// never corked.
func TestLargeFileCorksItsSocketAndUncorksAtTheEnd(t *testing.T) {
	dir := fileTree(t, map[string]int{"big.bin": 16 << 20, "small.txt": 100})
	for mode, cfg := range map[string]Config{"inline": {Mode: Inline, Loops: 1}, "pooled": {Mode: Pooled, Loops: 1}} {
		t.Run(mode, func(t *testing.T) {
			s, _ := startFiles(t, dir, FileServerOptions{}, cfg)
			c, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			c.(*net.TCPConn).SetReadBuffer(64 << 10)
			fd := serverSocket(t, c)
			cork := func() int {
				v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_CORK)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			r := bufio.NewReader(c)
			get := func(path string) int64 {
				t.Helper()
				io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatal(err)
				}
				if path == "/big.bin" {
					// The client has read nothing of 16 MiB: the server is
					// in the middle of the body, corked.
					deadline := time.Now().Add(5 * time.Second)
					for cork() != 1 && time.Now().Before(deadline) {
						time.Sleep(10 * time.Millisecond)
					}
					if cork() != 1 {
						t.Error("the socket is not corked in the middle of a 16 MiB file")
					}
				}
				n, err := io.Copy(io.Discard, resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			for range 2 {
				if n := get("/big.bin"); n != 16<<20 {
					t.Fatalf("big.bin: %d bytes", n)
				}
				if v := cork(); v != 0 {
					t.Fatalf("TCP_CORK is %d once the 16 MiB body is out: the next response would wait", v)
				}
			}
			if n := get("/small.txt"); n != 100 || cork() != 0 {
				t.Fatalf("small.txt: %d bytes, TCP_CORK %d", n, cork())
			}
		})
	}
}
