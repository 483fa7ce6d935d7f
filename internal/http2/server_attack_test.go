package http2

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// fakeClient is a scripted client made with x/net/http2's Framer, wired to
// a ServerConn in memory.
type fakeClient struct {
	t          *testing.T
	s          *ServerConn
	toServer   bytes.Buffer
	fromServer bytes.Buffer
	fr         *xhttp2.Framer
	hbuf       bytes.Buffer
	henc       *hpack.Encoder
	events     []ServerEvent
	err        error
	keepOut    bool // leave the server's output unread, as a client that never reads
	out        []byte
}

func newFakeClient(t *testing.T, cfg ServerConfig) *fakeClient {
	t.Helper()
	c := &fakeClient{t: t, s: NewServerConn(cfg)}
	c.fr = xhttp2.NewFramer(&c.toServer, &c.fromServer)
	c.henc = hpack.NewEncoder(&c.hbuf)
	c.fromServer.Write(c.s.Start(nil))
	c.toServer.WriteString(ClientPreface)
	c.fr.WriteSettings()
	c.deliver()
	if got := c.frames(); !strings.Contains(got, "SETTINGS 0 ACK") {
		t.Fatalf("server's first frames: %q", got)
	}
	return c
}

func (c *fakeClient) deliver() {
	out := c.out
	if !c.keepOut {
		out = nil
	}
	out, n, err := c.s.Feed(out, c.toServer.Bytes())
	c.toServer.Next(n)
	if c.keepOut {
		c.out = out
	} else {
		c.fromServer.Write(out)
	}
	for _, e := range c.s.Events() {
		e.Data = bytes.Clone(e.Data)
		c.events = append(c.events, e)
	}
	if err != nil {
		c.err = err
	}
}

func (c *fakeClient) frames() string {
	p := fakePeer{fr: c.fr}
	return p.frames()
}

func (c *fakeClient) block(fields ...string) []byte {
	c.hbuf.Reset()
	for i := 0; i < len(fields); i += 2 {
		c.henc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	return bytes.Clone(c.hbuf.Bytes())
}

func (c *fakeClient) get(id uint32, end bool) {
	c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, EndHeaders: true, EndStream: end,
		BlockFragment: c.block(":method", "GET", ":scheme", "http", ":authority", "a", ":path", "/")})
}

func (c *fakeClient) kinds() string {
	var s []string
	for _, e := range c.events {
		s = append(s, fmt.Sprintf("%d:%d", e.Kind, e.StreamID))
	}
	return strings.Join(s, " ")
}

func TestServerRequestAndResponse(t *testing.T) {
	c := newFakeClient(t, ServerConfig{})
	c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, EndHeaders: true,
		BlockFragment: c.block(":method", "POST", ":scheme", "http", ":authority", "a", ":path", "/up", "content-length", "5")})
	c.fr.WriteData(1, false, []byte("hel"))
	c.fr.WriteData(1, true, []byte("lo"))
	c.deliver()
	if len(c.events) != 3 || c.events[0].Kind != ServerRequest || c.events[0].Path != "/up" || c.events[0].Method != "POST" ||
		string(c.events[1].Data)+string(c.events[2].Data) != "hello" || !c.events[2].EndStream {
		t.Fatalf("events %+v", c.events)
	}
	out, err := c.s.WriteHeaders(nil, 1, 200, []Field{{"x-a", "b"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	out, err = c.s.WriteData(out, 1, []byte("ok"), true)
	if err != nil {
		t.Fatal(err)
	}
	c.fromServer.Write(out)
	if got := c.frames(); got != "HEADERS 1\nDATA 1 len=2 END_STREAM\n" || c.s.Active() != 0 {
		t.Fatalf("response frames %q, active %d", got, c.s.Active())
	}
	if _, err := c.s.WriteData(nil, 1, []byte("x"), true); !errors.Is(err, ErrStreamNotOpen) {
		t.Fatalf("WriteData on a finished stream: %v", err)
	}
}

func TestServerRefusesStreamsBeyondTheLimit(t *testing.T) {
	c := newFakeClient(t, ServerConfig{MaxStreams: 2})
	c.get(1, true)
	c.get(3, true)
	c.get(5, true)
	c.deliver()
	if got := c.frames(); got != "RST_STREAM 5 REFUSED_STREAM\n" {
		t.Fatalf("frames %q, want stream 5 refused", got)
	}
	if c.s.Active() != 2 || c.kinds() != "1:1 1:3" {
		t.Fatalf("active %d, events %s", c.s.Active(), c.kinds())
	}
}

func TestServerRapidReset(t *testing.T) {
	c := newFakeClient(t, ServerConfig{MaxResets: 50})
	for id := uint32(1); id < 2*60; id += 2 {
		c.get(id, true)
		c.fr.WriteRSTStream(id, xhttp2.ErrCodeCancel)
	}
	c.deliver()
	var ce ConnError
	if !errors.As(c.err, &ce) || ce.Code != ErrCodeEnhanceYourCalm {
		t.Fatalf("err %v, want ENHANCE_YOUR_CALM after 50 resets", c.err)
	}
	resets := strings.Count(c.kinds(), "4:")
	if resets != 51 {
		t.Fatalf("%d streams reset before the connection closed, want 51", resets)
	}
	if got := c.frames(); !strings.HasSuffix(got, "GOAWAY 0 ENHANCE_YOUR_CALM\n") {
		t.Fatalf("frames end %q", got[max(0, len(got)-60):])
	}
}

func TestServerResetsEarnedBackByResponses(t *testing.T) {
	c := newFakeClient(t, ServerConfig{MaxResets: 5})
	for id := uint32(1); id < 2*100; id += 2 {
		c.get(id, true)
		if id%4 == 1 {
			c.fr.WriteRSTStream(id, xhttp2.ErrCodeCancel)
		}
		c.deliver()
		if id%4 == 3 {
			if _, err := c.s.WriteHeaders(nil, id, 204, nil, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	if c.err != nil {
		t.Fatalf("one reset per completed response ended the connection: %v", c.err)
	}
}

func TestServerAttacks(t *testing.T) {
	tests := []struct {
		name  string
		cfg   ServerConfig
		write func(c *fakeClient)
		code  ErrCode
		check func(t *testing.T, c *fakeClient)
	}{
		{name: "a CONTINUATION flood is ENHANCE_YOUR_CALM", write: func(c *fakeClient) {
			c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, BlockFragment: c.block(":method", "GET")})
			for i := 0; i < 10000; i++ {
				c.fr.WriteContinuation(1, false, []byte{})
			}
		}, code: ErrCodeEnhanceYourCalm},
		{name: "a PING flood that is never read is ENHANCE_YOUR_CALM", cfg: ServerConfig{MaxPendingOutput: 4096}, write: func(c *fakeClient) {
			c.keepOut = true
			for i := 0; i < 1000; i++ {
				c.fr.WritePing(false, [8]byte{})
			}
		}, code: ErrCodeEnhanceYourCalm},
		{name: "a SETTINGS flood that is never read is ENHANCE_YOUR_CALM", cfg: ServerConfig{MaxPendingOutput: 4096}, write: func(c *fakeClient) {
			c.keepOut = true
			for i := 0; i < 1000; i++ {
				c.fr.WriteSettings()
			}
		}, code: ErrCodeEnhanceYourCalm},
		{name: "an HPACK bomb is answered 431 with the connection kept", cfg: ServerConfig{Headers: HeaderLimits{MaxHeaderListSize: 8192, MaxBlockBytes: 1 << 20}}, write: func(c *fakeClient) {
			c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, EndHeaders: true, EndStream: true,
				BlockFragment: c.block(":method", "GET", ":scheme", "http", ":path", "/", "bomb", strings.Repeat("b", 4000))})
			c.deliver()
			c.frames()
			ref := c.block("bomb", strings.Repeat("b", 4000)) // one byte: a table reference
			block := append(c.block(":method", "GET", ":scheme", "http", ":path", "/"), bytes.Repeat(ref, 100000)...)
			c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 3, EndHeaders: false, EndStream: true, BlockFragment: block[:16384]})
			for b := block[16384:]; len(b) > 0; {
				k := min(len(b), 16384)
				c.fr.WriteContinuation(3, k == len(b), b[:k])
				b = b[k:]
			}
		}, check: func(t *testing.T, c *fakeClient) {
			if got := c.frames(); got != "HEADERS 3 END_STREAM\n" {
				t.Fatalf("frames %q, want a 431 on stream 3", got)
			}
		}},
		{name: "a request without :path is reset PROTOCOL_ERROR", write: func(c *fakeClient) {
			c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, EndHeaders: true, EndStream: true, BlockFragment: c.block(":method", "GET", ":scheme", "http")})
		}, check: func(t *testing.T, c *fakeClient) {
			if got := c.frames(); got != "RST_STREAM 1 PROTOCOL_ERROR\n" {
				t.Fatalf("frames %q", got)
			}
		}},
		{name: "an uppercase header name is reset PROTOCOL_ERROR", write: func(c *fakeClient) {
			c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, EndHeaders: true, EndStream: true,
				BlockFragment: c.block(":method", "GET", ":scheme", "http", ":path", "/", "X-Up", "1")})
		}, check: func(t *testing.T, c *fakeClient) {
			if got := c.frames(); got != "RST_STREAM 1 PROTOCOL_ERROR\n" {
				t.Fatalf("frames %q", got)
			}
		}},
		{name: "HEADERS on a closed stream is a connection STREAM_CLOSED", write: func(c *fakeClient) {
			c.get(1, true)
			c.deliver()
			c.s.WriteHeaders(nil, 1, 204, nil, true)
			c.get(1, true)
		}, code: ErrCodeStreamClosed},
		{name: "DATA on a half-closed stream is a stream STREAM_CLOSED", write: func(c *fakeClient) {
			c.get(1, true)
			c.fr.WriteData(1, true, []byte("x"))
		}, check: func(t *testing.T, c *fakeClient) {
			if got := c.frames(); got != "RST_STREAM 1 STREAM_CLOSED\n" {
				t.Fatalf("frames %q", got)
			}
		}},
		{name: "a wrong preface is a PROTOCOL_ERROR", write: func(c *fakeClient) {
			c.s = NewServerConn(ServerConfig{})
			c.toServer.Reset()
			c.toServer.WriteString("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
		}, code: ErrCodeProtocol},
		{name: "a body longer than content-length is reset PROTOCOL_ERROR", write: func(c *fakeClient) {
			c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, EndHeaders: true,
				BlockFragment: c.block(":method", "POST", ":scheme", "http", ":path", "/", "content-length", "1")})
			c.fr.WriteData(1, true, []byte("xx"))
		}, check: func(t *testing.T, c *fakeClient) {
			if got := c.frames(); got != "RST_STREAM 1 PROTOCOL_ERROR\n" {
				t.Fatalf("frames %q", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeClient(t, tt.cfg)
			tt.write(c)
			c.deliver()
			if tt.code != 0 {
				var ce ConnError
				if !errors.As(c.err, &ce) || ce.Code != tt.code {
					t.Fatalf("err %v, want connection error %v", c.err, tt.code)
				}
				return
			}
			if c.err != nil {
				t.Fatalf("connection error %v", c.err)
			}
			tt.check(t, c)
			// The connection and its HPACK state still work.
			c.get(101, true)
			c.deliver()
			if last := c.events[len(c.events)-1]; c.err != nil || last.Kind != ServerRequest || last.StreamID != 101 {
				t.Fatalf("next request: %+v, %v", last, c.err)
			}
		})
	}
}

func TestServerZeroWindowSlowReader(t *testing.T) {
	c := newFakeClient(t, ServerConfig{})
	c.fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 0})
	c.get(1, true)
	c.deliver()
	c.frames()
	out, _ := c.s.WriteHeaders(nil, 1, 200, nil, false)
	out, err := c.s.WriteData(out, 1, make([]byte, 1000), true)
	c.fromServer.Write(out)
	if err != nil || c.frames() != "HEADERS 1\n" || !c.s.FlowBlocked() || c.s.Pending(1) != 1000 {
		t.Fatalf("err %v blocked %v pending %d", err, c.s.FlowBlocked(), c.s.Pending(1))
	}
	if _, err := c.s.WriteData(nil, 1, []byte("more"), true); !errors.Is(err, ErrDataPending) {
		t.Fatalf("second WriteData: %v, want ErrDataPending", err)
	}
	c.fromServer.Write(c.s.Reset(nil, 1, ErrCodeCancel)) // the caller's write timeout
	if got := c.frames(); got != "RST_STREAM 1 CANCEL\n" || c.s.FlowBlocked() || c.s.Active() != 0 {
		t.Fatalf("after reset %q", got)
	}
}

func TestServerShutdown(t *testing.T) {
	c := newFakeClient(t, ServerConfig{})
	c.get(1, true)
	c.deliver()
	c.fromServer.Write(c.s.Shutdown(nil))
	c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 3, EndHeaders: true, // opened after the GOAWAY: ignored
		BlockFragment: c.block(":method", "POST", ":scheme", "http", ":authority", "a", ":path", "/")})
	c.fr.WriteData(3, true, []byte("ignored too"))
	c.deliver()
	if got := c.frames(); got != "GOAWAY 0 NO_ERROR\n" || c.kinds() != "1:1" {
		t.Fatalf("frames %q events %s", got, c.kinds())
	}
	if c.s.Done() {
		t.Fatal("Done with stream 1 unanswered")
	}
	c.s.WriteHeaders(nil, 1, 204, nil, true)
	if !c.s.Done() {
		t.Fatal("not Done after the last stream finished")
	}
}

func TestServerManualBodyCredit(t *testing.T) {
	c := newFakeClient(t, ServerConfig{ManualBodyCredit: true, StreamWindow: 65535, ConnWindow: 65535})
	c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, EndHeaders: true,
		BlockFragment: c.block(":method", "POST", ":scheme", "http", ":authority", "a", ":path", "/up")})
	for i := 0; i < 4; i++ {
		c.fr.WriteData(1, false, make([]byte, 16000))
	}
	c.deliver()
	c.frames()
	if c.err != nil || strings.Contains(c.frames(), "WINDOW_UPDATE") {
		t.Fatalf("credit returned before Consume: %v", c.err)
	}
	c.fromServer.Write(c.s.Consume(nil, 1, 40000))
	if got := c.frames(); got != "WINDOW_UPDATE 0\nWINDOW_UPDATE 1\n" {
		t.Fatalf("after Consume(40000): %q, want both windows updated", got)
	}
	// The client may now send what was credited, and not a byte more.
	c.fr.WriteData(1, false, make([]byte, 16000))
	c.fr.WriteData(1, false, make([]byte, 16000))
	c.fr.WriteData(1, false, make([]byte, 9535)) // 65535 - 64000 + 40000 = 41535 allowed
	c.deliver()
	if c.err != nil || strings.Contains(c.frames(), "RST_STREAM") {
		t.Fatalf("data within the credit refused: %v", c.err)
	}
	c.fr.WriteData(1, false, make([]byte, 1))
	c.deliver()
	var ce ConnError
	if !errors.As(c.err, &ce) || ce.Code != ErrCodeFlowControl {
		t.Fatalf("a byte past the credit: %v, want FLOW_CONTROL_ERROR", c.err)
	}
}
