package server

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestMalformedRequestsGetAnErrorAndAClose(t *testing.T) {
	s := start(t, hello, Config{MaxHeaderBytes: 4096, MaxBodyBytes: 1000})
	tests := []struct {
		name string
		raw  string
		want int
	}{
		{"a garbage request line", "HELLO\r\n\r\n", 400},
		{"an unknown major version", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
		{"HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n", 400},
		{"Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"a header too large", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 5000) + "\r\n\r\n", 431},
		{"a body too large", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", 413},
		{"a chunked body too large", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n" + strings.Repeat("a", 2000) + "\r\n0\r\n\r\n", 413},
		{"a bad chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, r := rawConn(t, s)
			io.WriteString(c, tt.raw)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != tt.want || !resp.Close {
				t.Errorf("got %d (close %v), want %d and Connection: close", resp.StatusCode, resp.Close, tt.want)
			}
			if !closedByPeer(c, r, 2*time.Second) {
				t.Error("the connection stayed open")
			}
		})
	}
}

func TestMaxConnsClosesTheExtraConnections(t *testing.T) {
	s := start(t, hello, Config{MaxConns: 3})
	for i := 0; i < 3; i++ {
		resp, _ := exchangeKeep(t, s)
		if resp != 200 {
			t.Fatalf("connection %d got %d", i, resp)
		}
	}
	c, r := rawConn(t, s)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if !closedByPeer(c, r, 2*time.Second) {
		t.Error("a fourth connection was served")
	}
	if got := s.Stats().Rejected; got < 1 {
		t.Errorf("Rejected = %d, want at least 1", got)
	}
}

var kept []any

// exchangeKeep serves one request on a new connection and keeps it open.
func exchangeKeep(t *testing.T, s *Server) (int, string) {
	c, r := rawConn(t, s)
	kept = append(kept, c)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestTimeouts(t *testing.T) {
	t.Run("a slow head is cut at ReadHeaderTimeout", func(t *testing.T) {
		s := start(t, hello, Config{ReadHeaderTimeout: 300 * time.Millisecond})
		c, r := rawConn(t, s)
		io.WriteString(c, "GET / HTTP/1.1\r\nHo")
		begin := time.Now()
		if !closedByPeer(c, r, 3*time.Second) {
			t.Fatal("not closed")
		}
		if d := time.Since(begin); d < 250*time.Millisecond {
			t.Errorf("closed after %s, before the timeout", d)
		}
	})
	t.Run("an idle connection is closed at IdleTimeout", func(t *testing.T) {
		s := start(t, hello, Config{IdleTimeout: 300 * time.Millisecond})
		c, r := rawConn(t, s)
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if !closedByPeer(c, r, 3*time.Second) {
			t.Fatal("idle connection not closed")
		}
	})
	t.Run("a client that does not read is cut at WriteTimeout", func(t *testing.T) {
		big := strings.Repeat("x", 8<<20)
		for _, mode := range []Mode{Pooled, Inline} {
			s := start(t, HandlerFunc(func(c *Ctx) { c.WriteString(big) }), Config{Mode: mode, WriteTimeout: 300 * time.Millisecond})
			c, r := rawConn(t, s)
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			time.Sleep(time.Second) // read nothing
			n, _ := io.Copy(io.Discard, r)
			if n >= int64(len(big)) {
				t.Errorf("%s: got the whole %d-byte response from a cut connection", mode, n)
			}
			if open := s.Stats().OpenConns; open != 0 {
				t.Errorf("%s: %d connections still open", mode, open)
			}
		}
	})
}

// TestReadTimeoutBoundsTheBodyNotTheHead: a body still arriving past
// ReadHeaderTimeout (its head came in time) is read within ReadTimeout.
func TestReadTimeoutBoundsTheBodyNotTheHead(t *testing.T) {
	echo := HandlerFunc(func(c *Ctx) { c.Write(c.Body()) })
	s := start(t, echo, Config{ReadHeaderTimeout: 300 * time.Millisecond, ReadTimeout: 3 * time.Second})
	c, r := rawConn(t, s)
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
	time.Sleep(700 * time.Millisecond) // past ReadHeaderTimeout, within ReadTimeout
	io.WriteString(c, "world")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("a body arriving within ReadTimeout was cut: %v", err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "helloworld" {
		t.Errorf("body %q", b)
	}
}

func TestRequestBodies(t *testing.T) {
	echo := HandlerFunc(func(c *Ctx) { c.Write(c.Body()) })
	for _, mode := range []Mode{Pooled, Inline} {
		s := start(t, echo, Config{Mode: mode})
		tests := []struct {
			name, raw, want string
		}{
			{"Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", "hello"},
			{"chunked with trailers", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nT: 1\r\n\r\n", "abcde"},
		}
		for _, tt := range tests {
			t.Run(mode.String()+" "+tt.name, func(t *testing.T) {
				resp, body := exchange(t, s, tt.raw)
				if resp.StatusCode != 200 || body != tt.want {
					t.Errorf("got %d %q, want 200 %q", resp.StatusCode, body, tt.want)
				}
			})
		}
		t.Run(mode.String()+" Expect 100-continue", func(t *testing.T) {
			c, r := rawConn(t, s)
			io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
			line, err := r.ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
				t.Fatalf("got %q %v, want 100 Continue first", line, err)
			}
			r.ReadString('\n')
			io.WriteString(c, "ping")
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			if string(b) != "ping" {
				t.Errorf("body %q, want ping", b)
			}
		})
	}
}

func TestResponseFraming(t *testing.T) {
	s := start(t, hello, Config{})
	t.Run("HEAD has the length but no body", func(t *testing.T) {
		c, r := rawConn(t, s)
		io.WriteString(c, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(r, &http.Request{Method: "HEAD"})
		if err != nil || resp.ContentLength != 10 {
			t.Fatalf("HEAD: %v, length %d", err, resp.ContentLength)
		}
		resp, err = http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if string(b) != "Hello, Go!" {
			t.Errorf("the response after HEAD is %q: HEAD must not have sent a body", b)
		}
	})
	t.Run("HTTP/1.0 closes unless asked to keep alive", func(t *testing.T) {
		c, r := rawConn(t, s)
		io.WriteString(c, "GET / HTTP/1.0\r\n\r\n")
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if !closedByPeer(c, r, 2*time.Second) {
			t.Error("HTTP/1.0 connection kept open")
		}
		c2, r2 := rawConn(t, s)
		for i := 0; i < 2; i++ {
			io.WriteString(c2, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
			resp, err := http.ReadResponse(r2, nil)
			if err != nil {
				t.Fatalf("keep-alive request %d: %v", i, err)
			}
			io.Copy(io.Discard, resp.Body)
			if resp.Header.Get("Connection") != "keep-alive" {
				t.Errorf("HTTP/1.0 keep-alive response lacks Connection: keep-alive")
			}
		}
	})
	t.Run("a panicking handler gets a 500 and the server goes on", func(t *testing.T) {
		s := start(t, HandlerFunc(func(c *Ctx) {
			if string(c.Path()) == "/panic" {
				panic("boom")
			}
			c.WriteString("fine")
		}), Config{ErrorLog: discardLog()})
		resp, _ := exchange(t, s, "GET /panic HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp.StatusCode != 500 {
			t.Errorf("got %d, want 500", resp.StatusCode)
		}
		resp, body := exchange(t, s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp.StatusCode != 200 || body != "fine" {
			t.Errorf("after a panic got %d %q", resp.StatusCode, body)
		}
	})
}

func TestNativeAPI(t *testing.T) {
	s := start(t, HandlerFunc(func(c *Ctx) {
		c.SetStatus(201)
		c.SetHeader("X-Method", string(c.Method()))
		c.SetHeaderBytes([]byte("X-Query"), c.Query())
		c.SetHeader("X-Evil", "a\r\nInjected: 1")                // dropped
		c.SetContentType("text/html\r\nInjected-Too: 1\r\nX: y") // dropped
		c.SetContentType("application/json")
		fmt.Fprintf(c, `{"path":%q,"agent":%q}`, c.Path(), c.Header("user-agent"))
	}), Config{})
	resp, body := exchange(t, s, "PUT /a/b?x=1 HTTP/1.1\r\nHost: x\r\nUser-Agent: t\r\n\r\n")
	if resp.StatusCode != 201 || resp.Header.Get("X-Method") != "PUT" || resp.Header.Get("X-Query") != "x=1" {
		t.Errorf("got %d %v", resp.StatusCode, resp.Header)
	}
	if resp.Header.Get("Injected") != "" || resp.Header.Get("X-Evil") != "" || resp.Header.Get("Injected-Too") != "" {
		t.Error("a header with CR LF went out")
	}
	if resp.Header.Get("Content-Type") != "application/json" || body != `{"path":"/a/b","agent":"t"}` {
		t.Errorf("got %q %q", resp.Header.Get("Content-Type"), body)
	}
}
