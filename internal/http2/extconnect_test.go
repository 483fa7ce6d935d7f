package http2

import (
	"errors"
	"testing"

	xhttp2 "golang.org/x/net/http2"
)

// RFC 8441: SETTINGS_ENABLE_CONNECT_PROTOCOL and the extended CONNECT's
// pseudo-header fields, malformed cases reset PROTOCOL_ERROR (RFC 9113
// section 8.1.1), good ones reported with Protocol.

func TestServerAdvertisesExtendedConnectOnlyWhenEnabled(t *testing.T) {
	for _, on := range []bool{false, true} {
		peer := DefaultSettings()
		var r Reader
		out := NewServerConn(ServerConfig{EnableConnectProtocol: on}).Start(nil)
		for len(out) > 0 {
			f, n, err := r.Next(out)
			if err != nil || n == 0 {
				t.Fatalf("server preface: %v", err)
			}
			out = out[n:]
			if f.Header.Type == FrameSettings {
				for i := 0; i < f.NumSettings(); i++ {
					if id, v := f.Setting(i); peer.Apply(id, v) != nil {
						t.Fatalf("setting %v=%d refused", id, v)
					}
				}
			}
		}
		if peer.EnableConnectProtocol != on {
			t.Errorf("EnableConnectProtocol %v: advertised %v", on, peer.EnableConnectProtocol)
		}
	}
}

func TestSettingEnableConnectProtocolValues(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values []uint32
		want   bool
		err    bool
	}{
		{"1 enables", []uint32{1}, true, false},
		{"0 stays off", []uint32{0}, false, false},
		{"1 twice", []uint32{1, 1}, true, false},
		{"2 is PROTOCOL_ERROR", []uint32{2}, false, true},
		{"1 then 0 is PROTOCOL_ERROR (RFC 8441 section 3)", []uint32{1, 0}, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSettings()
			var err error
			for _, v := range tt.values {
				if err = s.Apply(SettingEnableConnectProtocol, v); err != nil {
					break
				}
			}
			if (err != nil) != tt.err || s.EnableConnectProtocol != tt.want {
				t.Errorf("got %v, err %v; want %v, err %v", s.EnableConnectProtocol, err, tt.want, tt.err)
			}
			if err != nil && CodeOf(err) != ErrCodeProtocol {
				t.Errorf("code %v, want PROTOCOL_ERROR", CodeOf(err))
			}
		})
	}
}

func TestServerExtendedConnectPseudoHeaders(t *testing.T) {
	good := []string{":method", "CONNECT", ":protocol", "websocket", ":scheme", "https", ":path", "/chat", ":authority", "a.test",
		"sec-websocket-version", "13"}
	without := func(name string) []string {
		var f []string
		for i := 0; i < len(good); i += 2 {
			if good[i] != name {
				f = append(f, good[i], good[i+1])
			}
		}
		return f
	}
	with := func(name, value string) []string {
		f := append([]string(nil), good...)
		for i := 0; i < len(f); i += 2 {
			if f[i] == name {
				f[i+1] = value
			}
		}
		return f
	}
	for _, tt := range []struct {
		name     string
		disabled bool // the server did not advertise the setting
		fields   []string
		ok       bool
	}{
		{"a well-formed extended CONNECT", false, good, true},
		{"any protocol name is the application's to judge", false, with(":protocol", "chat"), true},
		{"without :path", false, without(":path"), false},
		{"without :scheme", false, without(":scheme"), false},
		{"without :authority", false, without(":authority"), false},
		{":protocol on a GET", false, with(":method", "GET"), false},
		{"an empty :protocol", false, with(":protocol", ""), false},
		{":protocol twice", false, append(append([]string(nil), good[:4]...), append([]string{":protocol", "websocket"}, good[4:]...)...), false},
		{":protocol after a regular field", false, append(without(":protocol"), ":protocol", "websocket"), false},
		{":protocol without the setting", true, good, false},
		{"a plain CONNECT is still accepted", false, []string{":method", "CONNECT", ":authority", "a.test:443"}, true},
		{"a plain CONNECT with :path", false, []string{":method", "CONNECT", ":authority", "a.test:443", ":path", "/"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeClient(t, ServerConfig{EnableConnectProtocol: !tt.disabled})
			c.fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: 1, EndHeaders: true, BlockFragment: c.block(tt.fields...)})
			c.deliver()
			frames := c.frames()
			if !tt.ok {
				if frames != "RST_STREAM 1 PROTOCOL_ERROR\n" || c.err != nil {
					t.Fatalf("frames %q, err %v; want RST_STREAM 1 PROTOCOL_ERROR", frames, c.err)
				}
				return
			}
			if len(c.events) != 1 || c.events[0].Kind != ServerRequest || c.events[0].Method != "CONNECT" {
				t.Fatalf("events %+v, frames %q", c.events, frames)
			}
			e := c.events[0]
			if want := fieldOf(tt.fields, ":protocol"); e.Protocol != want {
				t.Errorf("Protocol %q, want %q", e.Protocol, want)
			}
			// The tunnel: DATA both ways, the stream open until both end.
			c.fr.WriteData(1, false, []byte("frames"))
			c.deliver()
			if last := c.events[len(c.events)-1]; last.Kind != ServerData || string(last.Data) != "frames" {
				t.Fatalf("tunnel DATA: %+v", last)
			}
			out, err := c.s.WriteHeaders(nil, 1, 200, nil, false)
			if err == nil {
				out, err = c.s.WriteData(out, 1, []byte("back"), false)
			}
			if err != nil {
				t.Fatal(err)
			}
			c.fromServer.Write(out)
			if got := c.frames(); got != "HEADERS 1\nDATA 1 len=4\n" || c.s.Active() != 1 {
				t.Fatalf("frames %q, active %d", got, c.s.Active())
			}
		})
	}
}

func fieldOf(fields []string, name string) string {
	for i := 0; i < len(fields); i += 2 {
		if fields[i] == name {
			return fields[i+1]
		}
	}
	return ""
}

func TestClientTunnelKeepsTheStreamOpen(t *testing.T) {
	c := NewClientConn(ClientConfig{})
	s := NewServerConn(ServerConfig{EnableConnectProtocol: true})
	toServer := func(b []byte) []ServerEvent {
		t.Helper()
		out, n, err := s.Feed(nil, b)
		if err != nil || n != len(b) {
			t.Fatalf("server Feed: %d of %d, %v", n, len(b), err)
		}
		if _, _, err := c.Feed(nil, out); err != nil {
			t.Fatalf("client Feed: %v", err)
		}
		return append([]ServerEvent(nil), s.Events()...)
	}
	hello := c.Start(nil)
	if _, _, err := c.Feed(nil, s.Start(nil)); err != nil {
		t.Fatal(err)
	}
	toServer(hello)
	if !c.PeerSettings().EnableConnectProtocol {
		t.Fatal("the client did not see SETTINGS_ENABLE_CONNECT_PROTOCOL")
	}
	out, id, err := c.Open(nil, &Request{Method: "CONNECT", Scheme: "http", Authority: "a", Path: "/ws", Protocol: "websocket",
		Tunnel: true, WantData: true})
	if err != nil {
		t.Fatal(err)
	}
	if out, err = c.WriteData(out, id, []byte("one"), false); err != nil {
		t.Fatal(err)
	}
	evs := toServer(out)
	if len(evs) != 2 || evs[0].Protocol != "websocket" || evs[0].EndStream || string(evs[1].Data) != "one" || evs[1].EndStream {
		t.Fatalf("server events %+v", evs)
	}
	if c.Pending(id) != 0 {
		t.Fatalf("Pending %d after a small write", c.Pending(id))
	}
	if out, err = c.WriteData(nil, id, nil, true); err != nil {
		t.Fatal(err)
	}
	if evs = toServer(out); len(evs) != 1 || !evs[0].EndStream {
		t.Fatalf("END_STREAM: %+v", evs)
	}
	if _, err := c.WriteData(nil, id, []byte("late"), false); !errors.Is(err, ErrStreamNotOpen) {
		t.Fatalf("WriteData after END_STREAM: %v", err)
	}
}
