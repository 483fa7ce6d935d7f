package http2

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// driver runs a ClientConn over a real net.Conn the way an event loop
// would: write what the engine appended, read, feed, collect events.
type driver struct {
	t      *testing.T
	conn   net.Conn
	c      *ClientConn
	out    []byte
	in     []byte
	buf    []byte
	events []Event
}

func dial(t *testing.T, addr string, cfg ClientConfig) *driver {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	d := &driver{t: t, conn: conn, c: NewClientConn(cfg), buf: make([]byte, 64<<10)}
	d.out = d.c.Start(d.out)
	d.flush()
	d.until(time.Now().Add(5*time.Second), func() bool { return d.c.CanOpen() > 0 })
	return d
}

func (d *driver) flush() {
	d.t.Helper()
	if len(d.out) == 0 {
		return
	}
	if _, err := d.conn.Write(d.out); err != nil {
		d.t.Fatalf("write: %v", err)
	}
	d.out = d.out[:0]
}

// step reads once (or times out), feeds the engine and appends events; it
// returns false when the read failed.
func (d *driver) step(deadline time.Time) bool {
	d.t.Helper()
	d.flush()
	d.conn.SetReadDeadline(deadline)
	n, err := d.conn.Read(d.buf)
	if n > 0 {
		d.in = append(d.in, d.buf[:n]...)
		var k int
		var ferr error
		d.out, k, ferr = d.c.Feed(d.out, d.in)
		for _, e := range d.c.Events() {
			if e.Data != nil {
				e.Data = bytes.Clone(e.Data)
			}
			d.events = append(d.events, e)
		}
		d.in = append(d.in[:0], d.in[k:]...)
		d.flush()
		if ferr != nil {
			return false
		}
	}
	return err == nil
}

// until steps until done returns true, failing the test at the deadline.
func (d *driver) until(deadline time.Time, done func() bool) {
	d.t.Helper()
	for !done() {
		if !d.step(deadline) {
			if done() {
				return
			}
			d.t.Fatalf("connection ended or deadline passed; engine err %v; events %+v", d.c.Err(), d.events)
		}
	}
}

// ended returns the terminal event of a stream, if any.
func (d *driver) ended(id uint32) (Event, bool) {
	for _, e := range d.events {
		if e.StreamID == id && (e.Kind == EventEnd || e.Kind == EventReset || e.Kind == EventFailed || e.Kind == EventRefused) {
			return e, true
		}
	}
	return Event{}, false
}

func (d *driver) data(id uint32) []byte {
	var b []byte
	for _, e := range d.events {
		if e.StreamID == id && e.Kind == EventData {
			b = append(b, e.Data...)
		}
	}
	return b
}

// h2cServer starts Go's net/http server speaking HTTP/2 with prior
// knowledge on a loopback port.
func h2cServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, Protocols: new(http.Protocols)}
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func testHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			http.Error(w, "not HTTP/2", 500)
			return
		}
		io.WriteString(w, "hello, "+r.Header.Get("x-name"))
	})
	mux.HandleFunc("/sum", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		io.WriteString(w, strconv.FormatInt(n, 10)+" "+hex.EncodeToString(h.Sum(nil)))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("content-length", strconv.Itoa(n))
		w.Write(bytes.Repeat([]byte("z"), n))
	})
	mux.HandleFunc("/trailers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Checksum")
		io.WriteString(w, "body")
		w.Header().Set("X-Checksum", "abc")
	})
	return mux
}

func TestClientAgainstNetHTTP(t *testing.T) {
	addr := h2cServer(t, testHandler())
	body100k := bytes.Repeat([]byte("0123456789"), 10<<10)
	body10m := bytes.Repeat([]byte("abcdefghij"), 1<<20)
	sum := func(b []byte) string {
		s := sha256.Sum256(b)
		return strconv.Itoa(len(b)) + " " + hex.EncodeToString(s[:])
	}
	tests := []struct {
		name     string
		cfg      ClientConfig
		req      Request
		wantBody string
		wantLen  int64
	}{
		{name: "a GET with an extra header is answered", req: Request{Method: "GET", Path: "/hello", Header: []Field{{"x-name", "gust"}}}, wantBody: "hello, gust"},
		{name: "a POST with an empty body is answered", req: Request{Method: "POST", Path: "/sum"}, wantBody: sum(nil)},
		{name: "a POST of 100 KB crosses the initial window", req: Request{Method: "POST", Path: "/sum", Body: body100k,
			Header: []Field{{"content-length", strconv.Itoa(len(body100k))}}}, wantBody: sum(body100k)},
		{name: "a POST of 10 MB is sent under flow control", req: Request{Method: "POST", Path: "/sum", Body: body10m}, wantBody: sum(body10m)},
		{name: "a response larger than a 65535-byte window is received whole", cfg: ClientConfig{StreamWindow: 65535, ConnWindow: 65535},
			req: Request{Method: "GET", Path: "/big?n=1000000"}, wantLen: 1000000},
		{name: "a HEAD response with content-length and no body ends cleanly", req: Request{Method: "HEAD", Path: "/big?n=5000"}, wantLen: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dial(t, addr, tt.cfg)
			tt.req.Scheme, tt.req.Authority = "http", addr
			tt.req.WantData = tt.wantBody != ""
			var id uint32
			var err error
			d.out, id, err = d.c.Open(d.out, &tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var end Event
			d.until(time.Now().Add(20*time.Second), func() bool {
				var ok bool
				end, ok = d.ended(id)
				return ok
			})
			if end.Kind != EventEnd || end.Status != 200 {
				t.Fatalf("stream ended with %+v", end)
			}
			if tt.wantBody != "" && string(d.data(id)) != tt.wantBody {
				t.Fatalf("body %q, want %q", d.data(id), tt.wantBody)
			}
			if tt.wantBody == "" && end.BodyBytes != tt.wantLen {
				t.Fatalf("body of %d bytes, want %d", end.BodyBytes, tt.wantLen)
			}
			if d.c.Active() != 0 || d.c.FlowBlocked() {
				t.Fatalf("after the response: %d active, blocked %v", d.c.Active(), d.c.FlowBlocked())
			}
		})
	}
}

func TestClientTrailersFromNetHTTP(t *testing.T) {
	addr := h2cServer(t, testHandler())
	var got []string
	d := dial(t, addr, ClientConfig{HeaderFunc: func(tag uint64, name, value string) {
		got = append(got, name+"="+value)
	}})
	var id uint32
	d.out, id, _ = d.c.Open(d.out, &Request{Method: "GET", Scheme: "http", Authority: addr, Path: "/trailers", WantData: true})
	d.until(time.Now().Add(5*time.Second), func() bool { _, ok := d.ended(id); return ok })
	kinds := ""
	for _, e := range d.events {
		if e.StreamID == id {
			kinds += e.Kind.String() + " "
		}
	}
	if kinds != "headers data trailers end " {
		t.Fatalf("events %q, want headers data trailers end", kinds)
	}
	if last := got[len(got)-1]; last != "x-checksum=abc" {
		t.Fatalf("last field %q, want the trailer x-checksum=abc (all: %q)", last, got)
	}
}

func TestClientManyStreamsAgainstNetHTTP(t *testing.T) {
	addr := h2cServer(t, testHandler())
	d := dial(t, addr, ClientConfig{MaxStreams: 100})
	const total = 1000
	opened, done := 0, 0
	for done < total {
		for d.c.CanOpen() > 0 && opened < total {
			var err error
			d.out, _, err = d.c.Open(d.out, &Request{Method: "GET", Scheme: "http", Authority: addr, Path: "/big?n=3000", Tag: uint64(opened)})
			if err != nil {
				t.Fatal(err)
			}
			opened++
		}
		if opened-done > 100 {
			t.Fatalf("%d streams open, above the limit of 100", opened-done)
		}
		d.events = d.events[:0]
		if !d.step(time.Now().Add(10 * time.Second)) {
			t.Fatalf("connection ended: %v", d.c.Err())
		}
		for _, e := range d.events {
			switch e.Kind {
			case EventEnd:
				if e.Status != 200 || e.BodyBytes != 3000 {
					t.Fatalf("stream %d: %+v", e.StreamID, e)
				}
				done++
			case EventReset, EventFailed, EventRefused:
				t.Fatalf("stream %d: %+v", e.StreamID, e)
			}
		}
	}
	if d.c.Active() != 0 {
		t.Fatalf("%d streams still active", d.c.Active())
	}
}
