package load

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// helloServer is a net/http server answering "Hello, Go!" on loopback.
func helloServer(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("Hello, Go!"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// rawServer accepts loopback connections and runs serve on each, so tests
// can answer with exactly the bytes they want.
type rawServer struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
	count atomic.Int64 // connections accepted
}

func newRawServer(t testing.TB, serve func(c net.Conn)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.count.Add(1)
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				serve(c)
			}()
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/" }

func (s *rawServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// serveRequests reads request heads (the generator sends no bodies in
// these tests) and calls answer once per request with the number of
// requests that arrived in the same read, which shows pipelining.
func serveRequests(c net.Conn, answer func(w *bufio.Writer, n, batch int) bool) {
	r := bufio.NewReaderSize(c, 64<<10)
	w := bufio.NewWriter(c)
	buf := make([]byte, 64<<10)
	var pending []byte
	n := 0
	for {
		k, err := r.Read(buf)
		if err != nil {
			return
		}
		pending = append(pending, buf[:k]...)
		batch := bytes.Count(pending, []byte("\r\n\r\n"))
		for i := 0; i < batch; i++ {
			end := bytes.Index(pending, []byte("\r\n\r\n"))
			pending = pending[end+4:]
			n++
			if !answer(w, n, batch) {
				w.Flush()
				return
			}
		}
		if w.Flush() != nil {
			return
		}
	}
}

const helloResponse = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Type: text/plain\r\n\r\nHello, Go!"

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// stallServer answers "Hello, Go!" but holds every response that falls in
// the first second of each 3-second period until that second is over.
func stallServer(t testing.TB) *httptest.Server {
	t.Helper()
	start := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		phase := time.Since(start) % (3 * time.Second)
		if phase < time.Second {
			select {
			case <-time.After(time.Second - phase):
			case <-r.Context().Done():
				return
			}
		}
		w.Write([]byte("Hello, Go!"))
	}))
	t.Cleanup(srv.Close)
	return srv
}
