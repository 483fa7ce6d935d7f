//go:build linux

package transport

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/poll"
	"golang.org/x/sys/unix"
)

// testLoop is a tiny edge-triggered HTTPS server loop, as gust/server will
// drive TLS: handshakes report back through a queue and the poller's Wake,
// readiness events during a handshake are ignored, and a finished handshake
// is served as if the socket were readable.
type testLoop struct {
	t     testing.TB
	p     *poll.Poller
	lfd   int
	port  int
	cfg   *tls.Config
	conns map[int]*loopConn

	mu       sync.Mutex
	finished []*TLS
	stop     bool
	done     chan struct{}
}

type loopConn struct {
	c   *TLS
	in  []byte
	buf [4096]byte
}

func startLoop(t testing.TB, cfg *tls.Config) *testLoop {
	p, err := poll.New(64)
	if err != nil {
		t.Fatal(err)
	}
	lfd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sa := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if err := unix.Bind(lfd, sa); err != nil {
		t.Fatal(err)
	}
	unix.Listen(lfd, 128)
	got, _ := unix.Getsockname(lfd)
	l := &testLoop{t: t, p: p, lfd: lfd, port: got.(*unix.SockaddrInet4).Port, cfg: cfg,
		conns: map[int]*loopConn{}, done: make(chan struct{})}
	p.AddRead(lfd)
	go l.run()
	t.Cleanup(func() {
		l.mu.Lock()
		l.stop = true
		l.mu.Unlock()
		p.Wake()
		<-l.done
	})
	return l
}

func (l *testLoop) url() string { return "https://127.0.0.1:" + strconv.Itoa(l.port) + "/" }

func (l *testLoop) run() {
	defer close(l.done)
	var events []poll.Event
	for {
		events, _ = l.p.Wait(events[:0], 50*time.Millisecond)
		l.mu.Lock()
		stop, finished := l.stop, l.finished
		l.finished = nil
		l.mu.Unlock()
		if stop {
			for fd, lc := range l.conns {
				lc.c.Release()
				unix.Close(fd)
			}
			unix.Close(l.lfd)
			l.p.Close()
			return
		}
		for _, c := range finished {
			l.handshakeDone(c)
		}
		for _, ev := range events {
			if int(ev.FD) == l.lfd {
				l.accept()
			} else if lc := l.conns[int(ev.FD)]; lc != nil {
				if done, _ := lc.c.HandshakeDone(); done {
					// Seen done before its callback's wake-up: served,
					// or answered and closed if it failed (a plain HTTP
					// client gets its 400 here then).
					l.handshakeDone(lc.c)
				}
			}
		}
	}
}

func (l *testLoop) accept() {
	for {
		fd, _, err := unix.Accept4(l.lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			return
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		c := NewServerTLS(NewPlain(fd), l.cfg)
		l.conns[fd] = &loopConn{c: c}
		l.p.Add(fd)
		c.Handshake(time.Now().Add(5*time.Second), func(c *TLS) {
			l.mu.Lock()
			l.finished = append(l.finished, c)
			l.mu.Unlock()
			l.p.Wake()
		})
	}
}

func (l *testLoop) handshakeDone(c *TLS) {
	lc := l.conns[c.FD()]
	if lc == nil || lc.c != c {
		// An event saw the handshake done first and the connection has
		// been served and closed since (its fd may even be reused).
		return
	}
	if _, err := c.HandshakeDone(); err != nil {
		if errors.Is(err, ErrNotTLS) {
			c.Inner().Write([]byte("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"))
		}
		l.close(lc)
		return
	}
	l.serve(lc) // an edge may have passed during the handshake
}

func (l *testLoop) close(lc *loopConn) {
	fd := lc.c.FD()
	lc.c.Release()
	delete(l.conns, fd)
	unix.Close(fd)
}

// serve reads requests until ErrWouldBlock and answers each with its path.
func (l *testLoop) serve(lc *loopConn) {
	if _, err := lc.c.Write(nil); err != nil && !errors.Is(err, ErrWouldBlock) {
		l.close(lc)
		return
	}
	for {
		n, err := lc.c.Read(lc.buf[:])
		lc.in = append(lc.in, lc.buf[:n]...)
		for {
			end := bytes.Index(lc.in, []byte("\r\n\r\n"))
			if end < 0 {
				break
			}
			path := strings.Fields(string(lc.in[:end]))[1]
			lc.in = lc.in[end+4:]
			body := "hello " + path + " over " + tls.VersionName(lc.c.Version()) + "\n"
			resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			if _, werr := lc.c.Write([]byte(resp)); werr != nil && !errors.Is(werr, ErrWouldBlock) {
				l.close(lc)
				return
			}
		}
		switch {
		case errors.Is(err, ErrWouldBlock):
			return
		case err != nil:
			lc.c.CloseNotify()
			l.close(lc)
			return
		}
	}
}

func TestTLSLoopServesNetHTTPClients(t *testing.T) {
	for _, ver := range versions {
		t.Run(ver.name+" keep-alive clients in parallel, and plain HTTP gets a 400", func(t *testing.T) {
			l := startLoop(t, serverConfig(t, ver.v))
			tr := &http.Transport{TLSClientConfig: clientConfig(t, ver.v), MaxIdleConnsPerHost: 4}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
			var wg sync.WaitGroup
			errs := make(chan error, 40)
			for i := 0; i < 40; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					path := fmt.Sprintf("/r%d", i)
					resp, err := client.Get(strings.TrimSuffix(l.url(), "/") + path)
					if err != nil {
						errs <- err
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if want := "hello " + path + " over " + tls.VersionName(ver.v) + "\n"; string(b) != want {
						errs <- fmt.Errorf("body %q, want %q", b, want)
					}
				}(i)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(l.port) + "/")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || !strings.Contains(string(b), "HTTP request to an HTTPS server") {
				t.Fatalf("plain HTTP to the TLS port: %d %q", resp.StatusCode, b)
			}
		})
	}
}

func TestTLSLoopServesCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	cert, _, err := SelfSigned(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := startLoop(t, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"two requests on one TLS 1.3 connection", []string{"-sSk", "-v", l.url() + "a", l.url() + "b"},
			[]string{"hello /a over TLS 1.3", "hello /b over TLS 1.3", "Re-using existing", "ALPN: server accepted http/1.1"}},
		{"TLS 1.2", []string{"-sSk", "--tlsv1.2", "--tls-max", "1.2", l.url() + "c"}, []string{"hello /c over TLS 1.2"}},
		{"plain HTTP to the TLS port", []string{"-sS", "http://127.0.0.1:" + strconv.Itoa(l.port) + "/"},
			[]string{"Client sent an HTTP request to an HTTPS server."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exec.Command(curl, append([]string{"--max-time", "10"}, tt.args...)...).CombinedOutput()
			if err != nil && !strings.Contains(tt.name, "plain") {
				t.Fatalf("curl: %v\n%s", err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("curl output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
