package http2

import (
	"errors"
	"testing"
)

// FuzzReader parses arbitrary bytes as a frame sequence. It must never
// panic, never claim more bytes than it was given, and never return a frame
// whose payload exceeds MaxFrameSize or its own length; a whole frame fed
// byte by byte must parse to the same result as fed at once.
func FuzzReader(f *testing.F) {
	f.Add(AppendData(nil, 1, []byte("abc"), true))
	f.Add(AppendHeaders(nil, 1, []byte{0x82, 0x84}, false, 1))
	f.Add(AppendSettings(AppendSettingsAck(nil), Setting{SettingMaxFrameSize, 1 << 20}))
	f.Add(AppendGoAway(AppendPing(nil, [8]byte{1}, false), 3, ErrCodeProtocol, []byte("bye")))
	f.Add(raw(6, FrameHeaders, FlagEndHeaders|FlagPriority|FlagPadded, 3, []byte{0, 0, 0, 0, 1, 16}))
	f.Add(AppendWindowUpdate(AppendRSTStream(nil, 1, ErrCodeCancel), 0, 1))
	f.Fuzz(func(t *testing.T, in []byte) {
		var r Reader
		buf := in
		for len(buf) > 0 {
			fr, n, err := r.Next(buf)
			var se StreamError
			if err != nil && !errors.As(err, &se) {
				return
			}
			if n == 0 {
				if err != nil {
					t.Fatalf("stream error without consuming the frame: %v", err)
				}
				return
			}
			if n > len(buf) || n != FrameHeaderLen+int(fr.Header.Length) {
				t.Fatalf("n=%d for a %d-byte frame in %d bytes", n, fr.Header.Length, len(buf))
			}
			if fr.Header.Length > DefaultMaxFrameSize || len(fr.Payload()) > int(fr.Header.Length) {
				t.Fatalf("payload %d of a %d-byte frame", len(fr.Payload()), fr.Header.Length)
			}
			// The accessors stay in bounds on every frame the reader accepts.
			switch fr.Header.Type {
			case FrameSettings:
				for i := 0; i < fr.NumSettings(); i++ {
					fr.Setting(i)
				}
			case FrameWindowUpdate:
				fr.WindowIncrement()
			case FrameRSTStream:
				fr.ErrCode()
			case FrameGoAway:
				fr.ErrCode()
				fr.LastStreamID()
				fr.DebugData()
			case FramePing:
				fr.PingData()
			case FramePushPromise:
				fr.PromisedStreamID()
			}
			buf = buf[n:]
		}
	})
}

// FuzzClientFeed feeds arbitrary server bytes to a client with streams
// open: it must never panic, report only events of streams it opened, and
// after an error keep returning it.
func FuzzClientFeed(f *testing.F) {
	settings := AppendSettings(nil, Setting{SettingMaxConcurrentStreams, 10})
	f.Add(append(settings, AppendData(nil, 1, []byte("x"), true)...))
	f.Add(append(settings, AppendHeaders(nil, 1, []byte{0x88}, true, 0)...))
	f.Add(append(settings, AppendGoAway(nil, 1, ErrCodeNo, nil)...))
	f.Add(append(settings, AppendHeaders(nil, 3, []byte{0x88, 0x40, 1, 'a', 1, 'b'}, false, 2)...))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewClientConn(ClientConfig{MaxStreams: 4, Headers: HeaderLimits{MaxHeaderListSize: 512}})
		c.Start(nil)
		c.gotSettings = true
		opened := map[uint32]bool{}
		for i := 0; i < 3; i++ {
			_, id, err := c.Open(nil, &Request{Method: "POST", Path: "/", Body: make([]byte, 70000)})
			if err != nil {
				t.Fatal(err)
			}
			opened[id] = true
		}
		_, n, err := c.Feed(nil, in)
		if n > len(in) {
			t.Fatalf("consumed %d of %d", n, len(in))
		}
		for _, e := range c.Events() {
			if e.Kind != EventGoAway && !opened[e.StreamID] {
				t.Fatalf("event for stream %d never opened: %+v", e.StreamID, e)
			}
		}
		if err != nil {
			if _, _, err2 := c.Feed(nil, in); err2 != err {
				t.Fatalf("second Feed returned %v, want %v", err2, err)
			}
		}
	})
}

// FuzzServerFeed feeds arbitrary client bytes, after a valid preface, to a
// server engine in chunks: it must never panic, never consume more than it
// was given, keep its stream count within MaxStreams, and after an error
// keep returning it.
func FuzzServerFeed(f *testing.F) {
	pre := append([]byte(ClientPreface), AppendSettings(nil)...)
	get := AppendHeaders(nil, 1, []byte{0x82, 0x86, 0x84, 0x41, 0x01, 'a'}, false, 0)
	f.Add(append(append([]byte{}, get...), AppendData(nil, 1, []byte("body"), true)...), uint8(7))
	f.Add(append(append([]byte{}, get...), AppendRSTStream(nil, 1, ErrCodeCancel)...), uint8(0))
	f.Add(AppendHeaders(nil, 3, []byte{0x82, 0x86, 0x84, 0x41, 0x01, 'a'}, true, 2), uint8(3))
	f.Add(AppendWindowUpdate(AppendPing(nil, [8]byte{}, false), 0, 1), uint8(1))
	// RFC 8441: an extended CONNECT (odd chunk: the setting advertised),
	// then tunnel DATA; and one without :path.
	connect := append([]byte{0x02, 7}, "CONNECT"...)
	protocol := append([]byte{0x00, 9}, ":protocol\x09websocket"...)
	xc := AppendHeaders(nil, 1, append(append(append([]byte{}, connect...), protocol...), 0x86, 0x84, 0x41, 0x01, 'a'), false, 0)
	f.Add(append(xc, AppendData(nil, 1, []byte{0x81, 0x80, 1, 2, 3, 4}, false)...), uint8(9))
	f.Add(AppendHeaders(nil, 1, append(append(append([]byte{}, connect...), protocol...), 0x86, 0x41, 0x01, 'a'), false, 0), uint8(1))
	f.Add(xc, uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		s := NewServerConn(ServerConfig{MaxStreams: 3, Headers: HeaderLimits{MaxHeaderListSize: 512}, EnableConnectProtocol: chunk&1 == 1})
		s.Start(nil)
		if _, n, err := s.Feed(nil, pre); err != nil || n != len(pre) {
			t.Fatalf("preface: %d %v", n, err)
		}
		var buf []byte
		step := int(chunk) + 1
		for i := 0; i < len(in); i += step {
			buf = append(buf, in[i:min(i+step, len(in))]...)
			_, n, err := s.Feed(nil, buf)
			if n > len(buf) || s.Active() > 3 {
				t.Fatalf("consumed %d of %d, %d streams active", n, len(buf), s.Active())
			}
			if err != nil {
				if _, _, err2 := s.Feed(nil, buf); err2 != err {
					t.Fatalf("second Feed returned %v, want %v", err2, err)
				}
				return
			}
			buf = buf[n:]
		}
	})
}
