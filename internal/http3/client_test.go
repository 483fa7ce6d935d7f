package http3

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gust-http/gust/internal/quic"
)

// events records what a ResponseHandler hears, one line each.
type events struct{ log []string }

func (e *events) Informational(h *ResponseHead) { e.add("1xx %d", h.Status) }
func (e *events) Headers(h *ResponseHead)       { e.add("head %d cl=%d", h.Status, h.ContentLength) }
func (e *events) Data(p []byte)                 { e.add("data %s", p) }
func (e *events) Trailers(f []Field)            { e.add("trailers %s=%s", f[0].Name, f[0].Value) }
func (e *events) End()                          { e.add("end") }
func (e *events) add(f string, a ...any)        { e.log = append(e.log, fmt.Sprintf(f, a...)) }

// section encodes fields given as name, value pairs.
func section(kv ...string) []byte {
	b := AppendSectionPrefix(nil)
	for i := 0; i < len(kv); i += 2 {
		b = AppendField(b, kv[i], kv[i+1])
	}
	return b
}

// frame builds raw frame bytes: type and payload.
func frame(t FrameType, payload []byte) []byte {
	return append(AppendFrameHeader(nil, t, uint64(len(payload))), payload...)
}

// codeOf returns the code of err, and whether it is a stream error.
func codeOf(err error) (ErrCode, bool) {
	var se StreamError
	return CodeOf(err), errors.As(err, &se)
}

func TestClientRequestStream(t *testing.T) {
	ok := AppendHeaders(nil, section(":status", "200", "content-length", "5"))
	data := append(AppendData(nil, []byte("hel")), AppendData(nil, []byte("lo"))...)
	trailers := AppendHeaders(nil, section("x-sum", "1"))
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name   string
		head   bool
		stream []byte
		fin    bool
		want   string // events, or the error's code
		code   ErrCode
		onConn bool // the error closes the connection
	}{
		{"a whole response", false, cat(AppendHeaders(nil, section(":status", "103")), ok, data, trailers), true,
			"1xx 103|head 200 cl=5|data h|data e|data l|data l|data o|trailers x-sum=1|end", 0, false},
		{"no content and no trailers", false, AppendHeaders(nil, section(":status", "204")), true, "head 204 cl=-1|end", 0, false},
		{"an unknown frame is skipped", false, cat(ok, frame(0x21, []byte("xx")), data), true,
			"head 200 cl=5|data h|data e|data l|data l|data o|end", 0, false},
		{"DATA before the head", false, cat(data, ok), true, "", ErrCodeFrameUnexpected, true},
		{"HEADERS after the trailers", false, cat(ok, data, trailers, trailers), true, "", ErrCodeFrameUnexpected, true},
		{"DATA after the trailers", false, cat(ok, data, trailers, data), true, "", ErrCodeFrameUnexpected, true},
		{"a PUSH_PROMISE", false, cat(ok, AppendPushPromise(nil, 0, section(":method", "GET"))), false, "", ErrCodeID, true},
		{"an HTTP/2 frame type", false, cat(ok, frame(0x06, make([]byte, 8))), false, "", ErrCodeFrameUnexpected, true},
		{"a frame cut by the FIN", false, ok[:len(ok)-1], true, "", ErrCodeFrame, true},
		{"no :status", false, AppendHeaders(nil, section("server", "x")), false, "", ErrCodeMessage, false},
		{"101", false, AppendHeaders(nil, section(":status", "101")), false, "", ErrCodeMessage, false},
		{"content past content-length", false, cat(ok, data, AppendData(nil, []byte("!"))), true, "", ErrCodeMessage, false},
		{"content short of content-length", false, cat(ok, AppendData(nil, []byte("hel"))), true, "", ErrCodeMessage, false},
		{"trailers before content-length is reached", false, cat(ok, AppendData(nil, []byte("hel")), trailers), true, "", ErrCodeMessage, false},
		{"pseudo-header in trailers", false, cat(ok, data, AppendHeaders(nil, section(":status", "200"))), true, "", ErrCodeMessage, false},
		{"the stream ends before the head", false, AppendHeaders(nil, section(":status", "100")), true, "", ErrCodeMessage, false},
		{"content in a HEAD response", true, cat(ok, AppendData(nil, []byte("x"))), true, "", ErrCodeMessage, false},
		{"a HEAD response's content-length is not its content", true, ok, true, "head 200 cl=5|end", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Client
			var s RequestStream
			if err := c.OpenRequest(&s, 4, tt.head); err != nil {
				t.Fatal(err)
			}
			var e events
			var err error
			// One byte at a time: every split of every frame.
			for i := 0; i < len(tt.stream) && err == nil; i++ {
				err = s.Receive(tt.stream[i:i+1], tt.fin && i == len(tt.stream)-1, &e)
			}
			if tt.code == 0 {
				if err != nil || strings.Join(e.log, "|") != tt.want || !s.Done() {
					t.Fatalf("error %v, events %q, want %q", err, strings.Join(e.log, "|"), tt.want)
				}
				return
			}
			code, onStream := codeOf(err)
			if code != tt.code || onStream == tt.onConn {
				t.Fatalf("error %v (code %v, stream error %v), want %v on the connection %v", err, code, onStream, tt.code, tt.onConn)
			}
			if onStream {
				if err := s.Receive([]byte{0xff}, true, &e); err != nil {
					t.Errorf("bytes after a stream error: %v", err)
				}
			}
		})
	}
}

func TestClientRequestSendOrder(t *testing.T) {
	var c Client
	var s RequestStream
	if err := c.OpenRequest(&s, 0, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendData(nil, []byte("x")); err != ErrRequestState {
		t.Fatalf("DATA before HEADERS: %v", err)
	}
	b, err := s.AppendHeaders(nil, section(":method", "POST"))
	if err == nil {
		b, err = s.AppendData(b, []byte("body"))
	}
	if err == nil {
		b, err = s.AppendTrailers(b, section("x-sum", "1"))
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendData(b, nil); err != ErrRequestState {
		t.Fatalf("DATA after trailers: %v", err)
	}
	// The server reads the three frames back.
	r := FrameReader{Kind: KindRequest}
	var types []FrameType
	for len(b) > 0 {
		f, n, ok, err := r.Next(b)
		if err != nil || !ok {
			t.Fatalf("reading back: %v", err)
		}
		b = b[n:]
		types = append(types, f.Type)
	}
	if fmt.Sprint(types) != "[HEADERS DATA HEADERS]" {
		t.Errorf("frames %v", types)
	}
}

func TestClientOpenRequestAfterGoAway(t *testing.T) {
	var c Client
	ctl := append(AppendStreamType(nil, StreamControl), AppendSettings(nil, DefaultSettings())...)
	ctl = AppendGoAway(ctl, 8)
	if _, err := c.ReceiveUni(3, ctl, false); err != nil {
		t.Fatal(err)
	}
	var s RequestStream
	for _, tt := range []struct {
		id   uint64
		want error
	}{{4, nil}, {8, ErrGoAway}, {12, ErrGoAway}} {
		if err := c.OpenRequest(&s, tt.id, false); err != tt.want {
			t.Errorf("stream %d: %v, want %v", tt.id, err, tt.want)
		}
	}
	if err := c.OpenRequest(&s, 2, false); err == nil {
		t.Error("a request on a unidirectional stream ID")
	}
}

func TestClientStart(t *testing.T) {
	c := Client{Settings: Settings{MaxFieldSectionSize: 16 << 10}}
	b := c.Start(nil)
	if typ, n := ParseStreamType(b); typ != StreamControl || n != 1 {
		t.Fatalf("stream type %v", typ)
	}
	r := FrameReader{Kind: KindControl}
	f, _, ok, err := r.Next(b[1:])
	if err != nil || !ok || f.Type != FrameSettings {
		t.Fatalf("first frame %v, %v", f.Type, err)
	}
	s := DefaultSettings()
	if err := ParseSettings(f.Payload, &s); err != nil || s.MaxFieldSectionSize != 16<<10 {
		t.Fatalf("settings %+v, %v", s, err)
	}
}

// varint returns v as a QUIC variable-length integer.
func varint(v uint64) []byte { return quic.AppendVarint(nil, v) }

// discard is a ResponseHandler that keeps nothing.
type discard struct{ n int }

func (d *discard) Informational(*ResponseHead) {}
func (d *discard) Headers(*ResponseHead)       {}
func (d *discard) Data(p []byte)               { d.n += len(p) }
func (d *discard) Trailers([]Field)            {}
func (d *discard) End()                        {}

func TestClientRequestReuseAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled buffers")
	}
	var c Client
	var s RequestStream
	var h discard
	resp := AppendHeaders(nil, section(":status", "200", "content-length", "4", "server", "gust"))
	resp = AppendData(resp, []byte("body"))
	req, out := section(":method", "GET", ":path", "/"), make([]byte, 0, 64)
	run := func() {
		if err := c.OpenRequest(&s, 0, false); err != nil {
			t.Fatal(err)
		}
		out, _ = s.AppendHeaders(out[:0], req)
		if err := s.Receive(resp, true, &h); err != nil || !s.Done() {
			t.Fatal(err)
		}
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations per request", n)
	}
}
