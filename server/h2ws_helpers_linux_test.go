//go:build linux

package server

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
)

// h2wsConn is a test's HTTP/2 client connection (internal/http2's client
// engine) opening WebSockets as extended CONNECT streams (RFC 8441) and
// ordinary requests beside them.
type h2wsConn struct {
	t       testing.TB
	nc      net.Conn
	cc      *http2.ClientConn
	streams map[uint32]*h2wsStream
	headers map[uint64][]http2.Field // response fields by tag (the stream id's request)
	nextTag uint64
	pending []byte // a partial frame
}

// h2wsStream is one stream of an h2wsConn: a WebSocket once its 200 came.
type h2wsStream struct {
	c       *h2wsConn
	id      uint32
	tag     uint64
	status  int
	body    []byte // a plain request's response body
	eng     websocket.Conn
	in      []byte
	got     []websocket.Event
	ended   bool          // END_STREAM arrived
	reset   bool          // RST_STREAM arrived, or the stream failed
	code    http2.ErrCode // the reset's code
	isWS    bool
	deflate bool
}

// dialH2WS opens an HTTP/2 connection to s: h2c with prior knowledge, or
// TLS with ALPN h2; it waits for the server's SETTINGS.
func dialH2WS(t testing.TB, s *Server, overTLS bool) *h2wsConn {
	t.Helper()
	return dialH2WSConfig(t, s, overTLS, http2.ClientConfig{})
}

// dialH2WSConfig is dialH2WS with the client engine's configuration.
func dialH2WSConfig(t testing.TB, s *Server, overTLS bool, cfg http2.ClientConfig) *h2wsConn {
	t.Helper()
	var nc net.Conn
	if overTLS {
		cfg := clientTLS(0)
		cfg.NextProtos = []string{"h2"}
		tc := dialTLS(t, s, cfg)
		if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
			t.Fatalf("ALPN chose %q, want h2", p)
		}
		nc = tc
	} else {
		nc, _ = rawConn(t, s)
	}
	return startH2WS(t, nc, cfg)
}

// startH2WS starts an HTTP/2 client on nc, connected to the server: it
// sends the preface and waits for the server's SETTINGS.
func startH2WS(t testing.TB, nc net.Conn, cfg http2.ClientConfig) *h2wsConn {
	t.Helper()
	c := &h2wsConn{t: t, nc: nc, streams: map[uint32]*h2wsStream{}, headers: map[uint64][]http2.Field{}}
	cfg.HeaderFunc = func(tag uint64, name, value string) {
		c.headers[tag] = append(c.headers[tag], http2.Field{Name: name, Value: value})
	}
	c.cc = http2.NewClientConn(cfg)
	c.write(c.cc.Start(nil))
	for c.cc.CanOpen() == 0 {
		if !c.read(5 * time.Second) {
			t.Fatal("connection ended before the server's SETTINGS")
		}
	}
	return c
}

func (c *h2wsConn) write(b []byte) {
	c.t.Helper()
	if len(b) == 0 {
		return
	}
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// read reads once and feeds the engine; false when the connection ended.
func (c *h2wsConn) read(d time.Duration) bool {
	c.nc.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 64<<10)
	n, err := c.nc.Read(buf)
	if n == 0 && err != nil {
		return false
	}
	c.pending = append(c.pending, buf[:n]...)
	out, used, ferr := c.cc.Feed(nil, c.pending)
	defer func() { c.pending = append(c.pending[:0], c.pending[used:]...) }() // events alias it
	if ferr != nil {
		c.t.Logf("client engine: %v", ferr)
	}
	for _, e := range c.cc.Events() {
		st := c.streams[e.StreamID]
		if st == nil {
			continue
		}
		switch e.Kind {
		case http2.EventHeaders:
			st.status = e.Status
			if st.isWS && e.Status == 200 {
				st.initWS()
			}
		case http2.EventData:
			if st.status == 200 && st.isWS {
				st.in = append(st.in, e.Data...)
				out = st.feedWS(out)
			} else {
				st.body = append(st.body, e.Data...)
			}
		case http2.EventEnd:
			st.ended = true
		case http2.EventReset, http2.EventFailed:
			st.reset, st.code = true, e.Code
		}
	}
	c.write(out)
	return ferr == nil
}

// open starts an extended CONNECT for path with :protocol proto and the
// fields given (sec-websocket-version 13 unless fields name another).
func (c *h2wsConn) open(path, proto string, fields ...http2.Field) *h2wsStream {
	c.t.Helper()
	hasVersion := false
	for _, f := range fields {
		hasVersion = hasVersion || f.Name == "sec-websocket-version"
	}
	if !hasVersion {
		fields = append(fields, http2.Field{Name: "sec-websocket-version", Value: "13"})
	}
	c.nextTag++
	out, id, err := c.cc.Open(nil, &http2.Request{Method: "CONNECT", Scheme: "http", Authority: "gust.test", Path: path,
		Protocol: proto, Header: fields, Tunnel: true, WantData: true, Tag: c.nextTag})
	if err != nil {
		c.t.Fatal(err)
	}
	st := &h2wsStream{c: c, id: id, tag: c.nextTag, isWS: true}
	for _, f := range fields {
		if f.Name == "sec-websocket-extensions" {
			st.deflate = true
		}
	}
	c.streams[id] = st
	c.write(out)
	return st
}

// get sends a plain GET on a new stream.
func (c *h2wsConn) get(path string) *h2wsStream {
	c.t.Helper()
	c.nextTag++
	out, id, err := c.cc.Open(nil, &http2.Request{Method: "GET", Scheme: "http", Authority: "gust.test", Path: path,
		WantData: true, Tag: c.nextTag})
	if err != nil {
		c.t.Fatal(err)
	}
	st := &h2wsStream{c: c, id: id, tag: c.nextTag}
	c.streams[id] = st
	c.write(out)
	return st
}

// wait reads until cond holds, failing the test after d.
func (c *h2wsConn) wait(d time.Duration, what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) || !c.read(time.Until(deadline)) {
			if cond() {
				return
			}
			c.t.Fatalf("waiting for %s: connection ended or timed out", what)
		}
	}
}

// field returns a response field of st.
func (st *h2wsStream) field(name string) string {
	for _, f := range st.c.headers[st.tag] {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}

// answered waits for the response's status.
func (st *h2wsStream) answered() int {
	st.c.t.Helper()
	st.c.wait(5*time.Second, "the response", func() bool { return st.status != 0 || st.reset })
	return st.status
}

func (st *h2wsStream) initWS() {
	var p *websocket.DeflateParams
	if ext := st.field("sec-websocket-extensions"); ext != "" {
		dp, err := websocket.ParseDeflateResponse([]byte(ext))
		if err != nil {
			st.c.t.Errorf("sec-websocket-extensions %q: %v", ext, err)
		}
		p = &dp
	}
	st.eng.Init(websocket.Config{Client: true, Deflate: p})
}

// feedWS gives the WebSocket engine what arrived; its answers (pongs, the
// close reply) are appended to out as DATA.
func (st *h2wsStream) feedWS(out []byte) []byte {
	reply, n, err := st.eng.Feed(nil, st.in)
	if err != nil {
		st.c.t.Logf("client WebSocket: %v", err)
	}
	for _, e := range st.eng.Events() {
		e.Payload = append([]byte(nil), e.Payload...)
		st.got = append(st.got, e)
	}
	st.in = append(st.in[:0], st.in[n:]...)
	if len(reply) > 0 {
		out, _ = st.c.cc.WriteData(out, st.id, reply, false)
	}
	return out
}

// send writes one WebSocket message (a fresh buffer: the engine keeps it
// until the window takes it).
func (st *h2wsStream) send(op websocket.Opcode, p string) {
	st.c.t.Helper()
	b, err := st.eng.AppendMessage(nil, op, []byte(p))
	if err != nil {
		st.c.t.Fatal(err)
	}
	st.sendRaw(b)
}

func (st *h2wsStream) sendRaw(b []byte) {
	st.c.t.Helper()
	out, err := st.c.cc.WriteData(nil, st.id, b, false)
	if err != nil {
		st.c.t.Fatal(err)
	}
	st.c.write(out)
}

// expect reads until the next WebSocket event and checks it.
func (st *h2wsStream) expect(kind websocket.EventKind, op websocket.Opcode, code int, payload string) {
	st.c.t.Helper()
	st.c.wait(5*time.Second, "a WebSocket event", func() bool { return len(st.got) > 0 })
	e := st.got[0]
	st.got = st.got[1:]
	if e.Kind != kind || kind == websocket.EventMessage && e.Op != op || kind == websocket.EventClose && e.Code != code || string(e.Payload) != payload {
		st.c.t.Fatalf("got %v op %d code %d %q; want %v op %d code %d %q", e.Kind, e.Op, e.Code, short(e.Payload), kind, op, code, short([]byte(payload)))
	}
}

// h2wsHandlers: /ws upgrades to echo (native or adapter), anything else
// answers "hello".
func h2wsSetups(ws *WebSocket) []struct {
	name string
	h    Handler
	mode Mode
} {
	setups := wsSetups(ws)
	for i := range setups {
		inner := setups[i].h
		if a, ok := inner.(*httpAdapter); ok {
			h := a.h
			setups[i].h = HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/ws") {
					h.ServeHTTP(w, r)
					return
				}
				w.Write([]byte("hello"))
			}))
			continue
		}
		setups[i].h = HandlerFunc(func(c *Ctx) {
			if strings.HasPrefix(string(c.Path()), "/ws") {
				inner.ServeGust(c)
				return
			}
			c.WriteString("hello")
		})
	}
	return setups
}

// h2wsConfig is a server's Config with HTTP/2 and extended CONNECT on.
func h2wsConfig(mode Mode, overTLS bool) Config {
	cfg := Config{Mode: mode, H2C: !overTLS, HTTP2: HTTP2Config{OverTLS: overTLS, ExtendedConnect: true}, ErrorLog: discardLog()}
	if overTLS {
		cfg.TLS = serverTLS()
		cfg.TLS.NextProtos = nil
	}
	return cfg
}
