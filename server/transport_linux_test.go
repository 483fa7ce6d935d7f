//go:build linux

package server

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
)

// holding is a transport.Conn shaped like TLS on a plain one: it reads
// ahead from the socket and hands bytes out a few at a time (so Buffered
// is often above zero and no readiness event will announce what it
// holds), and it takes all of every Write, keeping what the socket
// refuses until Write(nil) flushes it.
type holding struct {
	under transport.Conn
	buf   []byte
	in    []byte // read ahead, not yet returned
	held  []byte // taken by Write, not yet on the socket
	piece int    // the most one Read returns
}

func (h *holding) Read(p []byte) (int, error) {
	if len(h.in) == 0 {
		n, err := h.under.Read(h.buf)
		if n == 0 {
			return 0, err
		}
		h.in = h.buf[:n]
	}
	n := copy(p[:min(len(p), h.piece)], h.in)
	h.in = h.in[n:]
	return n, nil
}

func (h *holding) Write(p []byte) (int, error) {
	h.held = append(h.held, p...)
	n, err := h.under.Write(h.held)
	h.held = h.held[:copy(h.held, h.held[n:])]
	if err != nil {
		return len(p), err
	}
	return len(p), nil
}

func (h *holding) Buffered() int { return len(h.in) }
func (h *holding) FD() int       { return h.under.FD() }

// startHolding starts a server whose connections run over holding.
func startHolding(t *testing.T, h Handler, cfg Config) *Server {
	t.Helper()
	s := &Server{Handler: h, Config: cfg}
	s.layer = func(c transport.Conn) transport.Conn {
		return &holding{under: c, buf: make([]byte, 64<<10), piece: 7}
	}
	return serveForTest(t, s)
}

// TestServerOverATransportThatHoldsBytes runs the server over a transport
// with TLS's contract: reads that leave bytes buffered in the transport
// and writes that take everything yet hold some back.
func TestServerOverATransportThatHoldsBytes(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 256<<10) // 4 MiB
	echoLen := HandlerFunc(func(c *Ctx) {
		c.WriteString(string(c.Path()) + " " + strconv.Itoa(len(c.Body())))
	})
	bodyLen := HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%s %d", r.URL.Path, n)
	}))
	pipelined := func() (string, []string) {
		var req strings.Builder
		var want []string
		for i := range 40 {
			fmt.Fprintf(&req, "GET /%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
			want = append(want, fmt.Sprintf("/%d 0", i))
		}
		return req.String(), want
	}
	withBody := func() (string, []string) {
		body := strings.Repeat("b", 100000)
		return "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + body +
			"GET /after HTTP/1.1\r\nHost: x\r\n\r\n", []string{"/up 100000", "/after 0"}
	}
	tests := []struct {
		name    string
		handler Handler
		modes   []Mode
		request func() (string, []string)
		slow    bool // the client waits before reading
	}{
		{"pipelined requests read a few bytes at a time are all answered", echoLen, []Mode{Inline, Pooled}, pipelined, false},
		{"a body read a few bytes at a time is served whole, then the next request", echoLen, []Mode{Inline, Pooled}, withBody, false},
		{"a streamed body read a few bytes at a time reaches the handler whole", bodyLen, []Mode{Pooled}, withBody, false},
		{"a response the socket cannot take at once reaches a slow reader whole",
			HandlerFunc(func(c *Ctx) { c.WriteString(big) }), []Mode{Inline, Pooled},
			func() (string, []string) { return "GET / HTTP/1.1\r\nHost: x\r\n\r\n", []string{big} }, true},
	}
	for _, tt := range tests {
		for _, mode := range tt.modes {
			t.Run(tt.name+" ("+mode.String()+")", func(t *testing.T) {
				s := startHolding(t, tt.handler, Config{Mode: mode})
				c, r := rawConn(t, s)
				req, want := tt.request()
				go io.WriteString(c, req)
				if tt.slow {
					time.Sleep(200 * time.Millisecond) // let the server's socket fill up
				}
				for i, w := range want {
					resp, err := http.ReadResponse(r, nil)
					if err != nil {
						t.Fatalf("response %d: %v", i, err)
					}
					b, err := io.ReadAll(resp.Body)
					if err != nil || string(b) != w {
						t.Fatalf("response %d: %d bytes (%.20q...), %v; want %d bytes (%.20q...)", i, len(b), b, err, len(w), w)
					}
				}
			})
		}
	}
}
