package http2

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// serveLoop drives a ServerConn over one net.Conn the way an event loop
// would, with a tiny application: /sum answers the request body's length
// and SHA-256, /big?n= answers n bytes, /trailers a body and a trailer.
func serveLoop(conn net.Conn, cfg ServerConfig) {
	defer conn.Close()
	s := NewServerConn(cfg)
	out := s.Start(nil)
	var in []byte
	buf := make([]byte, 64<<10)
	type req struct {
		path string
		h    interface{ Write([]byte) (int, error) }
		n    int
	}
	reqs := map[uint32]*req{}
	bodies := map[uint32][]byte{} // response bodies kept until sent
	respond := func(id uint32, r *req) {
		var body []byte
		var trailers bool
		switch {
		case r.path == "/sum":
			h := r.h.(interface{ Sum([]byte) []byte })
			body = []byte(strconv.Itoa(r.n) + " " + hex.EncodeToString(h.Sum(nil)))
		case strings.HasPrefix(r.path, "/big?n="):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.path, "/big?n="))
			body = bytes.Repeat([]byte("z"), n)
		case r.path == "/trailers":
			body, trailers = []byte("body"), true
		default:
			body = []byte("hello")
		}
		bodies[id] = body
		fields := []Field{{"content-length", strconv.Itoa(len(body))}}
		if trailers {
			fields = []Field{{"trailer", "x-checksum"}}
		}
		out, _ = s.WriteHeaders(out, id, 200, fields, false)
		out, _ = s.WriteData(out, id, body, !trailers)
		if trailers {
			out, _ = s.WriteTrailers(out, id, []Field{{"x-checksum", "abc"}})
		}
	}
	for {
		if len(out) > 0 {
			if _, err := conn.Write(out); err != nil {
				return
			}
			out = out[:0]
		}
		if s.Done() {
			return
		}
		n, err := conn.Read(buf)
		if err != nil {
			return
		}
		in = append(in, buf[:n]...)
		var k int
		out, k, err = s.Feed(out, in)
		for _, e := range s.Events() {
			switch e.Kind {
			case ServerRequest:
				r := &req{path: e.Path, h: sha256.New()}
				reqs[e.StreamID] = r
				if e.EndStream {
					respond(e.StreamID, r)
				}
			case ServerData:
				r := reqs[e.StreamID]
				r.h.Write(e.Data)
				r.n += len(e.Data)
				out = s.Consume(out, e.StreamID, len(e.Data)) // a no-op without ManualBodyCredit
				if e.EndStream {
					respond(e.StreamID, r)
				}
			case ServerTrailers:
				respond(e.StreamID, reqs[e.StreamID])
			case ServerReset:
				delete(reqs, e.StreamID)
			}
		}
		in = append(in[:0], in[k:]...) // only now: ServerData events alias in
		if err != nil {
			conn.Write(out)
			return
		}
	}
}

// serverUnderTest listens on loopback and serves each connection with
// serveLoop; it returns the address.
func serverUnderTest(t *testing.T, cfg ServerConfig) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); serveLoop(c, cfg) }()
		}
	}()
	return ln.Addr().String()
}

// h2cClient is net/http's client speaking HTTP/2 with prior knowledge.
func h2cClient(t *testing.T) *http.Client {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func TestServerAgainstNetHTTPClient(t *testing.T) {
	for _, manual := range []bool{false, true} {
		t.Run(fmt.Sprintf("manual body credit %v", manual), func(t *testing.T) {
			testServerAgainstNetHTTPClient(t, ServerConfig{StreamWindow: 65535, ConnWindow: 65535, ManualBodyCredit: manual})
		})
	}
}

func testServerAgainstNetHTTPClient(t *testing.T, cfg ServerConfig) {
	addr := serverUnderTest(t, cfg)
	client := h2cClient(t)
	sum := func(b []byte) string {
		s := sha256.Sum256(b)
		return strconv.Itoa(len(b)) + " " + hex.EncodeToString(s[:])
	}
	body100k := bytes.Repeat([]byte("0123456789"), 10<<10)
	body10m := bytes.Repeat([]byte("abcdefghij"), 1<<20)
	tests := []struct {
		name, method, path string
		body               []byte
		want               string
		wantLen            int
	}{
		{name: "a GET is answered", method: "GET", path: "/", want: "hello"},
		{name: "a POST with an empty body is answered", method: "POST", path: "/sum", body: []byte{}, want: sum(nil)},
		{name: "a POST of 100 KB crosses a 65535-byte window", method: "POST", path: "/sum", body: body100k, want: sum(body100k)},
		{name: "a POST of 10 MB is received under flow control", method: "POST", path: "/sum", body: body10m, want: sum(body10m)},
		{name: "a 5 MB response is sent under the client's windows", method: "GET", path: "/big?n=5000000", wantLen: 5000000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, "http://"+addr+tt.path, bytes.NewReader(tt.body))
			if tt.body == nil {
				req.Body = nil
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 || resp.ProtoMajor != 2 {
				t.Fatalf("status %d proto %d err %v", resp.StatusCode, resp.ProtoMajor, err)
			}
			if tt.want != "" && string(got) != tt.want {
				t.Fatalf("body %q, want %q", got, tt.want)
			}
			if tt.wantLen != 0 && len(got) != tt.wantLen {
				t.Fatalf("body of %d bytes, want %d", len(got), tt.wantLen)
			}
		})
	}
	t.Run("response trailers reach the client", func(t *testing.T) {
		resp, err := client.Get("http://" + addr + "/trailers")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "body" || resp.Trailer.Get("X-Checksum") != "abc" {
			t.Fatalf("body %q trailer %v", b, resp.Trailer)
		}
	})
	t.Run("100 concurrent requests share one connection", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i := 0; i < 100; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				resp, err := client.Get(fmt.Sprintf("http://%s/big?n=%d", addr, 1000+i))
				if err != nil {
					errs <- err
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if len(b) != 1000+i {
					errs <- fmt.Errorf("request %d: %d bytes", i, len(b))
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}
