package http3

import (
	"strings"
	"testing"
)

// fields builds fields from "name: value" lines.
func fields(lines ...string) []Field {
	fs := make([]Field, len(lines))
	for i, l := range lines {
		j := strings.Index(l[1:], ":") + 1
		fs[i] = Field{Name: []byte(l[:j]), Value: []byte(strings.TrimPrefix(l[j+1:], " "))}
	}
	return fs
}

func TestCheckRequest(t *testing.T) {
	get := []string{":method: GET", ":scheme: https", ":authority: example.com", ":path: /"}
	with := func(extra ...string) []string { return append(append([]string(nil), get...), extra...) }
	for _, c := range []struct {
		name     string
		lines    []string
		extended bool
		ok       bool
	}{
		{"a plain GET passes", with("accept: */*"), false, true},
		{"a GET with host only passes", []string{":method: GET", ":scheme: https", ":path: /", "host: a"}, false, true},
		{"te: trailers passes", with("te: trailers"), false, true},
		{"a CONNECT with :authority only passes", []string{":method: CONNECT", ":authority: a:443"}, false, true},
		{"a :protocol on a GET is refused", append(with(), ":protocol: websocket"), true, false},
		{"an extended CONNECT with its fields passes", []string{":method: CONNECT", ":protocol: websocket", ":scheme: https", ":authority: a", ":path: /chat"}, true, true},
		{"an extended CONNECT is refused when not enabled", []string{":method: CONNECT", ":protocol: websocket", ":scheme: https", ":authority: a", ":path: /chat"}, false, false},
		{"a CONNECT with :path is refused", []string{":method: CONNECT", ":authority: a", ":path: /"}, false, false},
		{"a pseudo-header after a regular field is refused", []string{":method: GET", ":scheme: https", "accept: x", ":path: /", ":authority: a"}, false, false},
		{"an unknown pseudo-header is refused", with(":foo: bar")[:5], false, false},
		{"a repeated :path is refused", []string{":method: GET", ":scheme: https", ":authority: a", ":path: /", ":path: /x"}, false, false},
		{"an empty :path is refused", []string{":method: GET", ":scheme: https", ":authority: a", ":path: "}, false, false},
		{"a missing :scheme is refused", []string{":method: GET", ":authority: a", ":path: /"}, false, false},
		{"https without an authority is refused", []string{":method: GET", ":scheme: https", ":path: /"}, false, false},
		{":authority and host differing is refused", with("host: b"), false, false},
		{"an uppercase name is refused", with("Accept: x"), false, false},
		{"connection is refused", with("connection: close"), false, false},
		{"keep-alive is refused", with("keep-alive: 5"), false, false},
		{"proxy-connection is refused", with("proxy-connection: x"), false, false},
		{"transfer-encoding is refused", with("transfer-encoding: chunked"), false, false},
		{"upgrade is refused", with("upgrade: h2c"), false, false},
		{"te other than trailers is refused", with("te: gzip"), false, false},
		{"a value with LF is refused", with("x-a: b\nc"), false, false},
		{"content-length not digits is refused", with("content-length: 1x"), false, false},
		{"content-lengths that differ are refused", with("content-length: 1", "content-length: 2"), false, false},
		{"a :status in a request is refused", with(":status: 200")[:5], false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h RequestHead
			err := CheckRequest(fields(c.lines...), &h, c.extended)
			if (err == nil) != c.ok {
				t.Fatalf("got %v", err)
			}
			if err != nil && CodeOf(err) != ErrCodeMessage {
				t.Errorf("code %v", CodeOf(err))
			}
		})
	}
}

func TestCheckRequestHead(t *testing.T) {
	var h RequestHead
	fs := fields(":method: POST", ":scheme: https", ":authority: a", ":path: /up", "content-length: 12", "x: y")
	if err := CheckRequest(fs, &h, false); err != nil {
		t.Fatal(err)
	}
	if string(h.Method) != "POST" || string(h.Path) != "/up" || h.ContentLength != 12 || len(h.Fields) != 2 || string(h.Fields[1].Name) != "x" {
		t.Errorf("%+v", h)
	}
	if n := testing.AllocsPerRun(50, func() { CheckRequest(fs, &h, false) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func TestCheckResponseAndTrailers(t *testing.T) {
	var h ResponseHead
	if err := CheckResponse(fields(":status: 204", "server: gust"), &h); err != nil || h.Status != 204 || len(h.Fields) != 1 {
		t.Fatalf("%+v %v", h, err)
	}
	for _, lines := range [][]string{
		{"server: gust"}, {":status: 20"}, {":status: 2x0"}, {":status: 099"}, {":status: 600"},
		{":status: 200", ":status: 200"}, {":status: 200", ":path: /"}, {":status: 200", "connection: close"},
	} {
		if err := CheckResponse(fields(lines...), &h); CodeOf(err) != ErrCodeMessage {
			t.Errorf("%q: %v", lines, err)
		}
	}
	if err := CheckTrailers(fields("grpc-status: 0")); err != nil {
		t.Error(err)
	}
	if err := CheckTrailers(fields(":status: 200")); CodeOf(err) != ErrCodeMessage {
		t.Errorf("pseudo-header in trailers: %v", err)
	}
}
