package http2

import (
	"bytes"
	"errors"
	"testing"

	xhttp2 "golang.org/x/net/http2"
)

// raw builds one frame from its parts, so invalid frames can be written.
func raw(length int, t FrameType, f Flags, id uint32, payload []byte) []byte {
	return append(appendFrameHeader(nil, length, t, f, id), payload...)
}

func TestReaderRules(t *testing.T) {
	tests := []struct {
		name     string
		in       []byte
		max      uint32
		conn     bool
		stream   bool
		wantCode ErrCode
	}{
		{name: "a DATA frame on stream 0 is a connection PROTOCOL_ERROR", in: raw(1, FrameData, 0, 0, []byte{1}), conn: true, wantCode: ErrCodeProtocol},
		{name: "padding as long as the payload is a connection PROTOCOL_ERROR", in: raw(3, FrameData, FlagPadded, 1, []byte{3, 0, 0}), conn: true, wantCode: ErrCodeProtocol},
		{name: "a frame above MAX_FRAME_SIZE is a FRAME_SIZE_ERROR before its payload arrives", in: raw(16385, FrameData, 0, 1, nil), conn: true, wantCode: ErrCodeFrameSize},
		{name: "a larger MAX_FRAME_SIZE admits the frame", in: raw(20000, FrameData, 0, 1, make([]byte, 20000)), max: 1 << 20},
		{name: "a HEADERS frame on stream 0 is a connection PROTOCOL_ERROR", in: raw(1, FrameHeaders, FlagEndHeaders, 0, []byte{0x82}), conn: true, wantCode: ErrCodeProtocol},
		{name: "a HEADERS frame depending on itself is a stream PROTOCOL_ERROR", in: raw(6, FrameHeaders, FlagEndHeaders|FlagPriority, 3, []byte{0, 0, 0, 3, 16, 0x82}), stream: true, wantCode: ErrCodeProtocol},
		{name: "a PRIORITY frame of length 4 is a stream FRAME_SIZE_ERROR", in: raw(4, FramePriority, 0, 1, []byte{0, 0, 0, 0}), stream: true, wantCode: ErrCodeFrameSize},
		{name: "a PRIORITY frame on stream 0 is a connection PROTOCOL_ERROR", in: raw(5, FramePriority, 0, 0, make([]byte, 5)), conn: true, wantCode: ErrCodeProtocol},
		{name: "a valid PRIORITY frame is accepted", in: raw(5, FramePriority, 0, 3, []byte{0, 0, 0, 1, 16})},
		{name: "a RST_STREAM of length 3 is a connection FRAME_SIZE_ERROR", in: raw(3, FrameRSTStream, 0, 1, make([]byte, 3)), conn: true, wantCode: ErrCodeFrameSize},
		{name: "a RST_STREAM on stream 0 is a connection PROTOCOL_ERROR", in: raw(4, FrameRSTStream, 0, 0, make([]byte, 4)), conn: true, wantCode: ErrCodeProtocol},
		{name: "SETTINGS on a stream is a connection PROTOCOL_ERROR", in: raw(0, FrameSettings, 0, 1, nil), conn: true, wantCode: ErrCodeProtocol},
		{name: "SETTINGS of length 5 is a connection FRAME_SIZE_ERROR", in: raw(5, FrameSettings, 0, 0, make([]byte, 5)), conn: true, wantCode: ErrCodeFrameSize},
		{name: "a SETTINGS ACK with a payload is a connection FRAME_SIZE_ERROR", in: raw(6, FrameSettings, FlagAck, 0, make([]byte, 6)), conn: true, wantCode: ErrCodeFrameSize},
		{name: "a PING of length 7 is a connection FRAME_SIZE_ERROR", in: raw(7, FramePing, 0, 0, make([]byte, 7)), conn: true, wantCode: ErrCodeFrameSize},
		{name: "a PING on a stream is a connection PROTOCOL_ERROR", in: raw(8, FramePing, 0, 1, make([]byte, 8)), conn: true, wantCode: ErrCodeProtocol},
		{name: "a GOAWAY shorter than 8 is a connection FRAME_SIZE_ERROR", in: raw(7, FrameGoAway, 0, 0, make([]byte, 7)), conn: true, wantCode: ErrCodeFrameSize},
		{name: "a GOAWAY on a stream is a connection PROTOCOL_ERROR", in: raw(8, FrameGoAway, 0, 1, make([]byte, 8)), conn: true, wantCode: ErrCodeProtocol},
		{name: "a WINDOW_UPDATE of length 3 is a connection FRAME_SIZE_ERROR", in: raw(3, FrameWindowUpdate, 0, 0, make([]byte, 3)), conn: true, wantCode: ErrCodeFrameSize},
		{name: "a zero increment on the connection is a connection PROTOCOL_ERROR", in: raw(4, FrameWindowUpdate, 0, 0, make([]byte, 4)), conn: true, wantCode: ErrCodeProtocol},
		{name: "a zero increment on a stream is a stream PROTOCOL_ERROR", in: raw(4, FrameWindowUpdate, 0, 5, make([]byte, 4)), stream: true, wantCode: ErrCodeProtocol},
		{name: "a CONTINUATION without a header block is a connection PROTOCOL_ERROR", in: raw(1, FrameContinuation, FlagEndHeaders, 1, []byte{0x82}), conn: true, wantCode: ErrCodeProtocol},
		{name: "a frame inside an open header block is a connection PROTOCOL_ERROR", in: append(raw(1, FrameHeaders, 0, 1, []byte{0x82}), raw(8, FramePing, 0, 0, make([]byte, 8))...), conn: true, wantCode: ErrCodeProtocol},
		{name: "a CONTINUATION on another stream is a connection PROTOCOL_ERROR", in: append(raw(1, FrameHeaders, 0, 1, []byte{0x82}), raw(1, FrameContinuation, FlagEndHeaders, 3, []byte{0x84})...), conn: true, wantCode: ErrCodeProtocol},
		{name: "HEADERS then CONTINUATION on the same stream are accepted", in: append(raw(1, FrameHeaders, 0, 1, []byte{0x82}), raw(1, FrameContinuation, FlagEndHeaders, 1, []byte{0x84})...)},
		{name: "an unknown frame type is returned to be ignored", in: raw(3, FrameType(0xfa), 0, 7, []byte{1, 2, 3})},
		{name: "a PUSH_PROMISE shorter than its promised id is a FRAME_SIZE_ERROR", in: raw(3, FramePushPromise, FlagEndHeaders, 1, make([]byte, 3)), conn: true, wantCode: ErrCodeFrameSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Reader{MaxFrameSize: tt.max}
			buf := tt.in
			var err error
			for len(buf) > 0 {
				var n int
				_, n, err = r.Next(buf)
				if err != nil || n == 0 {
					break
				}
				buf = buf[n:]
			}
			var ce ConnError
			var se StreamError
			switch {
			case tt.conn:
				if !errors.As(err, &ce) || ce.Code != tt.wantCode {
					t.Fatalf("err = %v, want connection error %v", err, tt.wantCode)
				}
			case tt.stream:
				if !errors.As(err, &se) || se.Code != tt.wantCode {
					t.Fatalf("err = %v, want stream error %v", err, tt.wantCode)
				}
			default:
				if err != nil || len(buf) != 0 {
					t.Fatalf("err = %v, %d bytes left", err, len(buf))
				}
			}
		})
	}
}

func TestReaderNeedsMoreForPartialFrames(t *testing.T) {
	frame := AppendData(nil, 1, []byte("hello"), true)
	var r Reader
	for i := 0; i < len(frame); i++ {
		if _, n, err := r.Next(frame[:i]); n != 0 || err != nil {
			t.Fatalf("prefix of %d bytes: n=%d err=%v, want need more", i, n, err)
		}
	}
	f, n, err := r.Next(frame)
	if err != nil || n != len(frame) || string(f.Payload()) != "hello" || !f.Header.Flags.Has(FlagEndStream) {
		t.Fatalf("whole frame: n=%d err=%v payload=%q flags=%x", n, err, f.Payload(), f.Header.Flags)
	}
}

// TestReaderReadsFramerFrames parses frames written by x/net/http2's Framer,
// an independent implementation, and checks every field read back.
func TestReaderReadsFramerFrames(t *testing.T) {
	var buf bytes.Buffer
	fr := xhttp2.NewFramer(&buf, nil)
	fr.WriteDataPadded(1, true, []byte("body"), []byte{0, 0, 0})
	fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 3, BlockFragment: []byte{0x82, 0x84}, EndHeaders: true,
		PadLength: 2, Priority: xhttp2.PriorityParam{StreamDep: 1, Weight: 9}})
	fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingMaxConcurrentStreams, Val: 7}, xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 1 << 20})
	fr.WriteWindowUpdate(5, 1234)
	fr.WritePing(true, [8]byte{1, 2, 3, 4, 5, 6, 7, 8})
	fr.WriteRSTStream(7, xhttp2.ErrCodeCancel)
	fr.WriteGoAway(9, xhttp2.ErrCodeEnhanceYourCalm, []byte("calm"))
	fr.WritePriority(11, xhttp2.PriorityParam{StreamDep: 1, Weight: 3})

	var r Reader
	in := buf.Bytes()
	next := func() Frame {
		t.Helper()
		f, n, err := r.Next(in)
		if err != nil || n == 0 {
			t.Fatalf("Next: n=%d err=%v", n, err)
		}
		in = in[n:]
		return f
	}
	if f := next(); string(f.Payload()) != "body" || f.Header.Length != 8 || !f.Header.Flags.Has(FlagEndStream) {
		t.Errorf("DATA: payload %q length %d", f.Payload(), f.Header.Length)
	}
	if f := next(); !bytes.Equal(f.Payload(), []byte{0x82, 0x84}) || f.Header.StreamID != 3 {
		t.Errorf("HEADERS: fragment %x stream %d", f.Payload(), f.Header.StreamID)
	}
	f := next()
	if f.NumSettings() != 2 {
		t.Fatalf("SETTINGS: %d settings", f.NumSettings())
	}
	if id, v := f.Setting(1); id != SettingInitialWindowSize || v != 1<<20 {
		t.Errorf("SETTINGS[1] = %v %d", id, v)
	}
	if f := next(); f.WindowIncrement() != 1234 || f.Header.StreamID != 5 {
		t.Errorf("WINDOW_UPDATE: %d on %d", f.WindowIncrement(), f.Header.StreamID)
	}
	if f := next(); f.PingData() != [8]byte{1, 2, 3, 4, 5, 6, 7, 8} || !f.Header.Flags.Has(FlagAck) {
		t.Errorf("PING: %v", f.PingData())
	}
	if f := next(); f.ErrCode() != ErrCodeCancel {
		t.Errorf("RST_STREAM: %v", f.ErrCode())
	}
	if f := next(); f.LastStreamID() != 9 || f.ErrCode() != ErrCodeEnhanceYourCalm || string(f.DebugData()) != "calm" {
		t.Errorf("GOAWAY: %d %v %q", f.LastStreamID(), f.ErrCode(), f.DebugData())
	}
	if f := next(); f.Header.Type != FramePriority {
		t.Errorf("PRIORITY: type %v", f.Header.Type)
	}
}

// TestWritersReadByFramer checks every writer against x/net/http2's Framer.
func TestWritersReadByFramer(t *testing.T) {
	block := bytes.Repeat([]byte{0x82}, 40000)
	var out []byte
	out = AppendSettings(out, Setting{SettingEnablePush, 0}, Setting{SettingMaxFrameSize, 1 << 15})
	out = AppendSettingsAck(out)
	out = AppendHeaders(out, 1, block, false, 0)
	out = AppendData(out, 1, []byte("abc"), true)
	out = AppendWindowUpdate(out, 0, 99)
	out = AppendPing(out, [8]byte{9}, false)
	out = AppendRSTStream(out, 3, ErrCodeRefusedStream)
	out = AppendGoAway(out, 5, ErrCodeProtocol, []byte("x"))
	out = AppendPriority(out, 7, 1, true, 200)

	fr := xhttp2.NewFramer(nil, bytes.NewReader(out))
	read := func() xhttp2.Frame {
		t.Helper()
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("ReadFrame: %v", err)
		}
		return f
	}
	if s := read().(*xhttp2.SettingsFrame); s.NumSettings() != 2 || s.Setting(1).Val != 1<<15 {
		t.Errorf("SETTINGS: %v", s)
	}
	if s := read().(*xhttp2.SettingsFrame); !s.IsAck() {
		t.Error("SETTINGS ACK without ACK")
	}
	var got []byte
	h := read().(*xhttp2.HeadersFrame)
	got = append(got, h.HeaderBlockFragment()...)
	for !h.HeadersEnded() {
		c := read().(*xhttp2.ContinuationFrame)
		got = append(got, c.HeaderBlockFragment()...)
		if c.HeadersEnded() {
			break
		}
	}
	if !bytes.Equal(got, block) {
		t.Errorf("header block of %d bytes reassembled to %d", len(block), len(got))
	}
	if d := read().(*xhttp2.DataFrame); string(d.Data()) != "abc" || !d.StreamEnded() {
		t.Errorf("DATA: %q", d.Data())
	}
	if w := read().(*xhttp2.WindowUpdateFrame); w.Increment != 99 || w.StreamID != 0 {
		t.Errorf("WINDOW_UPDATE: %+v", w)
	}
	if p := read().(*xhttp2.PingFrame); p.Data != [8]byte{9} || p.IsAck() {
		t.Errorf("PING: %+v", p)
	}
	if r := read().(*xhttp2.RSTStreamFrame); r.ErrCode != xhttp2.ErrCodeRefusedStream || r.StreamID != 3 {
		t.Errorf("RST_STREAM: %+v", r)
	}
	if g := read().(*xhttp2.GoAwayFrame); g.LastStreamID != 5 || g.ErrCode != xhttp2.ErrCodeProtocol || string(g.DebugData()) != "x" {
		t.Errorf("GOAWAY: %+v", g)
	}
	if p := read().(*xhttp2.PriorityFrame); p.StreamDep != 1 || !p.Exclusive || p.Weight != 200 {
		t.Errorf("PRIORITY: %+v", p)
	}
}

func TestSettingsApply(t *testing.T) {
	tests := []struct {
		name string
		id   SettingID
		v    uint32
		code ErrCode // 0: accepted
	}{
		{"ENABLE_PUSH 2 is a PROTOCOL_ERROR", SettingEnablePush, 2, ErrCodeProtocol},
		{"INITIAL_WINDOW_SIZE 2^31 is a FLOW_CONTROL_ERROR", SettingInitialWindowSize, 1 << 31, ErrCodeFlowControl},
		{"MAX_FRAME_SIZE below 2^14 is a PROTOCOL_ERROR", SettingMaxFrameSize, 16383, ErrCodeProtocol},
		{"MAX_FRAME_SIZE 2^24 is a PROTOCOL_ERROR", SettingMaxFrameSize, 1 << 24, ErrCodeProtocol},
		{"MAX_FRAME_SIZE 2^24-1 is accepted", SettingMaxFrameSize, 1<<24 - 1, 0},
		{"an unknown setting is ignored", SettingID(0xff), 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSettings()
			err := s.Apply(tt.id, tt.v)
			if tt.code == 0 && err != nil || tt.code != 0 && CodeOf(err) != tt.code {
				t.Fatalf("Apply = %v, want code %v", err, tt.code)
			}
		})
	}
}
