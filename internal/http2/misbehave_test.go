package http2

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// fakePeer is a scripted server made with x/net/http2's Framer and HPACK
// encoder, wired to a ClientConn in memory: what the peer writes is fed to
// the engine, what the engine appends is read back by the peer's Framer.
type fakePeer struct {
	t          *testing.T
	c          *ClientConn
	toClient   bytes.Buffer
	fromClient bytes.Buffer
	fr         *xhttp2.Framer
	hbuf       bytes.Buffer
	henc       *hpack.Encoder
	events     []Event
	err        error
}

func newFakePeer(t *testing.T, cfg ClientConfig, settings ...xhttp2.Setting) *fakePeer {
	t.Helper()
	p := &fakePeer{t: t, c: NewClientConn(cfg)}
	p.fr = xhttp2.NewFramer(&p.toClient, &p.fromClient)
	p.henc = hpack.NewEncoder(&p.hbuf)
	p.fromClient.Write(p.c.Start(nil))
	preface := make([]byte, len(ClientPreface))
	if _, err := io.ReadFull(&p.fromClient, preface); err != nil || string(preface) != ClientPreface {
		t.Fatalf("preface %q, %v", preface, err)
	}
	p.fr.WriteSettings(settings...)
	p.deliver()
	if got := p.frames(); !strings.HasPrefix(got, "SETTINGS ") || !strings.Contains(got, "SETTINGS 0 ACK") {
		t.Fatalf("client's first frames: %q", got)
	}
	return p
}

// deliver feeds everything the peer wrote to the engine.
func (p *fakePeer) deliver() {
	out, n, err := p.c.Feed(nil, p.toClient.Bytes())
	p.toClient.Next(n)
	p.fromClient.Write(out)
	p.events = append(p.events, p.c.Events()...)
	if err != nil {
		p.err = err
	}
}

// open starts a request and returns its stream id.
func (p *fakePeer) open(req Request) uint32 {
	p.t.Helper()
	out, id, err := p.c.Open(nil, &req)
	if err != nil {
		p.t.Fatalf("Open: %v", err)
	}
	p.fromClient.Write(out)
	return id
}

// frames reads every frame the client wrote and summarizes them, one per
// line: type, stream, flags of note, length or code.
func (p *fakePeer) frames() string {
	var b strings.Builder
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return b.String()
		}
		h := f.Header()
		fmt.Fprintf(&b, "%v %d", h.Type, h.StreamID)
		switch f := f.(type) {
		case *xhttp2.SettingsFrame:
			if f.IsAck() {
				b.WriteString(" ACK")
			}
		case *xhttp2.DataFrame:
			fmt.Fprintf(&b, " len=%d", len(f.Data()))
			if f.StreamEnded() {
				b.WriteString(" END_STREAM")
			}
		case *xhttp2.HeadersFrame:
			if f.StreamEnded() {
				b.WriteString(" END_STREAM")
			}
		case *xhttp2.RSTStreamFrame:
			fmt.Fprintf(&b, " %v", f.ErrCode)
		case *xhttp2.GoAwayFrame:
			fmt.Fprintf(&b, " %v", f.ErrCode)
		case *xhttp2.PingFrame:
			if f.IsAck() {
				b.WriteString(" ACK")
			}
		}
		b.WriteString("\n")
	}
}

// block encodes a header block with the peer's encoder.
func (p *fakePeer) block(fields ...string) []byte {
	p.hbuf.Reset()
	for i := 0; i < len(fields); i += 2 {
		p.henc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	return bytes.Clone(p.hbuf.Bytes())
}

func (p *fakePeer) respond(id uint32, body string) {
	p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200"), EndHeaders: true, EndStream: body == ""})
	if body != "" {
		p.fr.WriteData(id, true, []byte(body))
	}
}

// kinds lists the events of one stream, or of the connection for id 0.
func (p *fakePeer) kinds(id uint32) string {
	var s []string
	for _, e := range p.events {
		goAway := e.Kind == EventGoAway
		if id == 0 && goAway || id != 0 && !goAway && e.StreamID == id {
			s = append(s, e.Kind.String())
		}
	}
	return strings.Join(s, " ")
}

func (p *fakePeer) last(id uint32) Event {
	for i := len(p.events) - 1; i >= 0; i-- {
		if p.events[i].StreamID == id {
			return p.events[i]
		}
	}
	return Event{}
}

var get = Request{Method: "GET", Scheme: "http", Authority: "peer", Path: "/"}

func TestClientGoAwayMidRun(t *testing.T) {
	p := newFakePeer(t, ClientConfig{})
	a, b, c := p.open(get), p.open(get), p.open(get)
	p.respond(a, "ok")
	p.fr.WriteGoAway(a, xhttp2.ErrCodeNo, nil)
	p.deliver()
	if got := p.kinds(a); got != "headers end" {
		t.Errorf("stream %d: %q, want headers end", a, got)
	}
	for _, id := range []uint32{b, c} {
		if e := p.last(id); e.Kind != EventRefused || !e.Retryable {
			t.Errorf("stream %d: %+v, want a retryable refusal", id, e)
		}
	}
	if g := p.last(a); g.Kind != EventGoAway || g.Code != ErrCodeNo {
		t.Errorf("last event %+v, want GOAWAY NO_ERROR with last stream %d", g, a)
	}
	if p.c.CanOpen() != 0 || !p.c.GoingAway() || p.c.Active() != 0 {
		t.Errorf("after GOAWAY: CanOpen %d GoingAway %v Active %d", p.c.CanOpen(), p.c.GoingAway(), p.c.Active())
	}
	if _, _, err := p.c.Open(nil, &get); !errors.Is(err, ErrNoStream) {
		t.Errorf("Open after GOAWAY: %v, want ErrNoStream", err)
	}
}

func TestClientRSTStream(t *testing.T) {
	p := newFakePeer(t, ClientConfig{})
	a, b := p.open(get), p.open(get)
	p.fr.WriteRSTStream(a, xhttp2.ErrCodeInternal)
	p.fr.WriteRSTStream(b, xhttp2.ErrCodeRefusedStream)
	p.fr.WriteData(a, true, []byte("late")) // after a reset: ignored, but counted for the connection window
	p.deliver()
	if e := p.last(a); e.Kind != EventReset || e.Code != ErrCodeInternal || e.Retryable {
		t.Errorf("stream %d: %+v", a, e)
	}
	if e := p.last(b); e.Kind != EventReset || e.Code != ErrCodeRefusedStream || !e.Retryable {
		t.Errorf("stream %d: %+v", b, e)
	}
	if p.err != nil || p.c.Active() != 0 {
		t.Errorf("err %v, active %d", p.err, p.c.Active())
	}
}

func TestClientMaxConcurrentStreamsOne(t *testing.T) {
	p := newFakePeer(t, ClientConfig{}, xhttp2.Setting{ID: xhttp2.SettingMaxConcurrentStreams, Val: 1})
	for i := 0; i < 3; i++ {
		if n := p.c.CanOpen(); n != 1 {
			t.Fatalf("round %d: CanOpen %d, want 1", i, n)
		}
		id := p.open(get)
		if n := p.c.CanOpen(); n != 0 {
			t.Fatalf("round %d: CanOpen %d with a stream open, want 0", i, n)
		}
		if _, _, err := p.c.Open(nil, &get); !errors.Is(err, ErrNoStream) {
			t.Fatalf("second Open: %v, want ErrNoStream", err)
		}
		p.respond(id, "x")
		p.deliver()
	}
}

func TestClientZeroWindowStallsWithoutSpinning(t *testing.T) {
	p := newFakePeer(t, ClientConfig{}, xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 0})
	p.frames()
	id := p.open(Request{Method: "POST", Scheme: "http", Authority: "peer", Path: "/", Body: make([]byte, 1000)})
	if got := p.frames(); got != fmt.Sprintf("HEADERS %d\n", id) {
		t.Fatalf("frames with a zero window: %q, want only HEADERS", got)
	}
	if !p.c.FlowBlocked() {
		t.Fatal("FlowBlocked false with a body waiting on a zero window")
	}
	// Whatever else the peer sends, no DATA leaves and each Feed returns.
	for i := 0; i < 100; i++ {
		p.fr.WritePing(false, [8]byte{byte(i)})
		p.fr.WriteWindowUpdate(0, 1000) // the connection window opens, the stream's never does
		p.deliver()
	}
	if got := p.frames(); strings.Contains(got, "DATA") || strings.Count(got, "PING 0 ACK") != 100 {
		t.Fatalf("frames while stalled: %q", got)
	}
	if !p.c.FlowBlocked() || p.c.Active() != 1 {
		t.Fatalf("FlowBlocked %v Active %d", p.c.FlowBlocked(), p.c.Active())
	}
	// The caller gives up on the stall: Cancel resets the stream.
	out := p.c.Cancel(nil, id)
	p.fromClient.Write(out)
	if got := p.frames(); got != fmt.Sprintf("RST_STREAM %d CANCEL\n", id) || p.c.FlowBlocked() {
		t.Fatalf("after Cancel: %q, blocked %v", got, p.c.FlowBlocked())
	}
}

func TestClientWindowOpensLater(t *testing.T) {
	p := newFakePeer(t, ClientConfig{}, xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 0}, xhttp2.Setting{ID: xhttp2.SettingMaxFrameSize, Val: 16384})
	p.frames()
	id := p.open(Request{Method: "POST", Scheme: "http", Authority: "peer", Path: "/", Body: make([]byte, 40000)})
	p.fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 20000}) // applied to the open stream
	p.deliver()
	p.fr.WriteWindowUpdate(id, 20000)
	p.deliver()
	want := fmt.Sprintf("HEADERS %[1]d\nSETTINGS 0 ACK\nDATA %[1]d len=16384\nDATA %[1]d len=3616\nDATA %[1]d len=16384\nDATA %[1]d len=3616 END_STREAM\n", id)
	if got := p.frames(); got != want {
		t.Fatalf("frames:\n%s\nwant:\n%s", got, want)
	}
}

func TestClientConnectionErrors(t *testing.T) {
	tests := []struct {
		name  string
		cfg   ClientConfig
		write func(p *fakePeer, id uint32)
		code  ErrCode
	}{
		{"a PING of 7 bytes is a FRAME_SIZE_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteRawFrame(xhttp2.FramePing, 0, 0, make([]byte, 7))
		}, ErrCodeFrameSize},
		{"DATA on an idle stream is a PROTOCOL_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteData(id+2, true, []byte("x"))
		}, ErrCodeProtocol},
		{"a PUSH_PROMISE with push disabled is a PROTOCOL_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WritePushPromise(xhttp2.PushPromiseParam{StreamID: id, PromiseID: 2, BlockFragment: p.block(":method", "GET"), EndHeaders: true})
		}, ErrCodeProtocol},
		{"a WINDOW_UPDATE past 2^31-1 on the connection is a FLOW_CONTROL_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteWindowUpdate(0, 1<<31-1)
		}, ErrCodeFlowControl},
		{"DATA beyond the connection window is a FLOW_CONTROL_ERROR", ClientConfig{StreamWindow: 1 << 20, ConnWindow: 65535, MaxFrameSize: 1 << 20}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200"), EndHeaders: true})
			p.fr.WriteData(id, false, make([]byte, 70000))
		}, ErrCodeFlowControl},
		{"an undecodable header block is a COMPRESSION_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, EndHeaders: true})
		}, ErrCodeCompression},
		{"a CONTINUATION flood is ENHANCE_YOUR_CALM", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200")})
			for i := 0; i < 1000; i++ {
				p.fr.WriteContinuation(id, false, nil)
			}
		}, ErrCodeEnhanceYourCalm},
		{"a header block past MaxBlockBytes is ENHANCE_YOUR_CALM", ClientConfig{Headers: HeaderLimits{MaxBlockBytes: 1000}}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200", "x-big", strings.Repeat("q", 2000)), EndHeaders: true})
		}, ErrCodeEnhanceYourCalm},
		{"a frame interrupting a header block is a PROTOCOL_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200")})
			p.fr.WritePing(false, [8]byte{})
		}, ErrCodeProtocol},
		{"SETTINGS_ENABLE_PUSH 1 from a server is a PROTOCOL_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingEnablePush, Val: 1})
		}, ErrCodeProtocol},
		{"SETTINGS_INITIAL_WINDOW_SIZE overflowing an open stream is a FLOW_CONTROL_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteWindowUpdate(id, 1<<31-1-65535)
			p.fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 65536})
		}, ErrCodeFlowControl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakePeer(t, tt.cfg)
			id := p.open(get)
			p.frames()
			tt.write(p, id)
			p.deliver()
			var ce ConnError
			if !errors.As(p.err, &ce) || ce.Code != tt.code {
				t.Fatalf("Feed error %v, want a connection error %v", p.err, tt.code)
			}
			if got := p.frames(); !strings.HasSuffix(got, "GOAWAY 0 "+tt.code.String()+"\n") {
				t.Fatalf("client wrote %q, want a GOAWAY %v", got, tt.code)
			}
			if e := p.last(id); e.Kind != EventFailed || e.Code != tt.code {
				t.Fatalf("open stream: %+v, want failed with %v", e, tt.code)
			}
			if _, _, err := p.c.Feed(nil, []byte{0}); !errors.Is(err, p.err) {
				t.Fatalf("Feed after the error: %v", err)
			}
		})
	}
}

func TestClientStreamErrors(t *testing.T) {
	tests := []struct {
		name  string
		cfg   ClientConfig
		write func(p *fakePeer, id uint32)
		code  ErrCode
		err   error
	}{
		{"a header list past the limit resets the stream only", ClientConfig{Headers: HeaderLimits{MaxHeaderListSize: 1000, MaxBlockBytes: 1 << 16}}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200", "a", strings.Repeat("a", 600), "b", strings.Repeat("b", 600)), EndHeaders: true})
		}, ErrCodeCancel, ErrHeaderListTooLarge},
		{"a response without :status is malformed", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block("x", "y"), EndHeaders: true, EndStream: true})
		}, ErrCodeProtocol, ErrMissingStatus},
		{"an uppercase field name is malformed", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200", "X-Up", "y"), EndHeaders: true, EndStream: true})
		}, ErrCodeProtocol, ErrMalformedHeaders},
		{"a pseudo-field after a regular one is malformed", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block("x", "y", ":status", "200"), EndHeaders: true, EndStream: true})
		}, ErrCodeProtocol, ErrMalformedHeaders},
		{"trailers without END_STREAM are malformed", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200"), EndHeaders: true})
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block("x", "y"), EndHeaders: true})
		}, ErrCodeProtocol, ErrTrailersNoEnd},
		{"a body shorter than content-length is malformed", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200", "content-length", "10"), EndHeaders: true})
			p.fr.WriteData(id, true, []byte("short"))
		}, ErrCodeProtocol, errContentLength},
		{"DATA before the headers is a stream error", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteData(id, true, []byte("x"))
		}, ErrCodeProtocol, errDataBeforeHeaders},
		{"DATA beyond the stream window is a stream FLOW_CONTROL_ERROR", ClientConfig{StreamWindow: 65535, MaxFrameSize: 1 << 20}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200"), EndHeaders: true})
			p.fr.WriteData(id, false, make([]byte, 70000))
		}, ErrCodeFlowControl, errStreamWindow},
		{"HEADERS depending on its own stream are a stream PROTOCOL_ERROR", ClientConfig{}, func(p *fakePeer, id uint32) {
			p.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: id, BlockFragment: p.block(":status", "200"), EndHeaders: true,
				Priority: xhttp2.PriorityParam{StreamDep: id, Weight: 1}})
		}, ErrCodeProtocol, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakePeer(t, tt.cfg)
			id := p.open(get)
			p.frames()
			tt.write(p, id)
			p.deliver()
			if p.err != nil {
				t.Fatalf("connection error %v, want a stream error", p.err)
			}
			e := p.last(id)
			if e.Kind != EventFailed || e.Code != tt.code || (tt.err != nil && !errors.Is(e.Err, tt.err)) {
				t.Fatalf("stream: %+v, want failed with %v (%v)", e, tt.code, tt.err)
			}
			if got := p.frames(); !strings.Contains(got, fmt.Sprintf("RST_STREAM %d %v", id, tt.code)) {
				t.Fatalf("client wrote %q, want RST_STREAM %v", got, tt.code)
			}
			// The connection, and its HPACK state, still work.
			next := p.open(get)
			p.respond(next, "fine")
			p.deliver()
			if got := p.kinds(next); got != "headers end" || p.err != nil {
				t.Fatalf("next stream: %q, err %v", got, p.err)
			}
		})
	}
}

func TestClientSettingsAckAndPing(t *testing.T) {
	p := newFakePeer(t, ClientConfig{})
	if p.c.SettingsAcked() {
		t.Fatal("SettingsAcked before the peer's ACK")
	}
	p.fr.WriteSettingsAck()
	p.fr.WritePing(true, [8]byte{1}) // an unsolicited ACK is ignored
	p.deliver()
	if !p.c.SettingsAcked() || p.err != nil || len(p.events) != 0 {
		t.Fatalf("acked %v err %v events %+v", p.c.SettingsAcked(), p.err, p.events)
	}
	p.fromClient.Write(p.c.Ping(nil, [8]byte{7}))
	if got := p.frames(); got != "PING 0\n" {
		t.Fatalf("Ping wrote %q", got)
	}
}
