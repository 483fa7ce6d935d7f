package load

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

func TestGRPCStatusOfACall(t *testing.T) {
	body := func(p ...string) []byte {
		var b []byte
		for _, s := range p {
			b = append(b, s...)
		}
		return b
	}
	one := "\x00\x00\x00\x00\x02hi"
	for _, tc := range []struct {
		name   string
		fields [][2]string // header and trailer fields, in order
		http   int
		data   []byte
		want   int
		msgs   int64
	}{
		{"OK in the trailers", [][2]string{{"content-type", "application/grpc"}, {"grpc-status", "0"}}, 200, body(one), grpcOK, 1},
		{"a trailers-only UNIMPLEMENTED", [][2]string{{"grpc-status", "12"}, {"grpc-message", "unknown method"}}, 200, nil, grpcUnimplemented, 0},
		{"a status in two digits", [][2]string{{"grpc-status", "14"}}, 200, nil, grpcUnavailable, 0},
		{"the last of two statuses", [][2]string{{"grpc-status", "0"}, {"grpc-status", "4"}}, 200, nil, 4, 0},
		{"a code gRPC does not define is UNKNOWN", [][2]string{{"grpc-status", "17"}}, 200, nil, grpcUnknown, 0},
		{"a status that is not a number is INTERNAL", [][2]string{{"grpc-status", "ok"}}, 200, nil, grpcInternal, 0},
		{"an empty status is INTERNAL", [][2]string{{"grpc-status", ""}}, 200, nil, grpcInternal, 0},
		{"a 200 without a status is INTERNAL", nil, 200, body(one), grpcInternal, 1},
		{"a 404 without a status is UNIMPLEMENTED", nil, 404, nil, grpcUnimplemented, 0},
		{"a 503 without a status is UNAVAILABLE", nil, 503, nil, grpcUnavailable, 0},
		{"a 401 without a status is UNAUTHENTICATED", nil, 401, nil, grpcUnauthenticated, 0},
		{"a 500 without a status is UNKNOWN", nil, 500, nil, grpcUnknown, 0},
		{"OK with a body cut in a message is INTERNAL", [][2]string{{"grpc-status", "0"}}, 200, body(one, "\x00\x00"), grpcInternal, 1},
		{"OK with a message over the limit is RESOURCE_EXHAUSTED", [][2]string{{"grpc-status", "0"}}, 200, []byte("\x00\x7f\x00\x00\x00"), grpcResourceExhausted, 0},
		{"a server's error outranks a broken body", [][2]string{{"grpc-status", "14"}}, 200, []byte("\x05"), grpcUnavailable, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c grpcCall
			for _, f := range tc.fields {
				c.header(f[0], f[1])
			}
			c.frames.feed(tc.data, maxGRPCMessage)
			if got := c.code(tc.http); got != tc.want || c.frames.msgs != tc.msgs {
				t.Fatalf("status %d with %d messages, want %d with %d", got, c.frames.msgs, tc.want, tc.msgs)
			}
		})
	}
}

func TestGRPCCallReadsNoAllocation(t *testing.T) {
	data := []byte("\x00\x00\x00\x00\x02hi\x00\x00\x00\x00\x00")
	allocs := testing.AllocsPerRun(100, func() {
		var c grpcCall
		c.header("content-type", "application/grpc")
		c.frames.feed(data, maxGRPCMessage)
		c.header("grpc-status", "0")
		if c.code(200) != grpcOK {
			panic("not OK")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per call", allocs)
	}
}

// TestGRPCRunCountsStatusesAndMessages runs calls against a server that
// answers each of four ways in turn: two messages split across DATA
// frames then OK trailers, a trailers-only UNAVAILABLE, a message with no
// grpc-status (INTERNAL), and a 404 (UNIMPLEMENTED).
func TestGRPCRunCountsStatusesAndMessages(t *testing.T) {
	block := func(c *framerConn, fields ...string) []byte {
		c.hbuf.Reset()
		for i := 0; i+1 < len(fields); i += 2 {
			c.henc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
		}
		return c.hbuf.Bytes()
	}
	two := []byte("\x00\x00\x00\x00\x03abc\x00\x00\x00\x00\x01z")
	srv := newFramerServer(t, nil, false, func(c *framerConn, f xhttp2.Frame) bool {
		id, end := requestEnd(f)
		if !end {
			return true
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		switch id % 8 {
		case 1:
			c.writeBlock(id, block(c, ":status", "200", "content-type", "application/grpc"), false)
			c.fr.WriteData(id, false, two[:6])
			c.fr.WriteData(id, false, two[6:])
			c.writeBlock(id, block(c, "grpc-status", "0"), true)
		case 3:
			c.writeBlock(id, block(c, ":status", "200", "content-type", "application/grpc", "grpc-status", "14", "grpc-message", "busy"), true)
		case 5:
			c.writeBlock(id, block(c, ":status", "200", "content-type", "application/grpc"), false)
			c.fr.WriteData(id, true, two[:8])
		case 7:
			c.writeBlock(id, block(c, ":status", "404"), true)
		}
		return true
	})
	r, err := Run(context.Background(), Config{
		URL: "http://" + srv.ln.Addr().String() + "/echo.Echo/Say", Method: "POST", Body: []byte("\x00\x00\x00\x00\x00"),
		Header: [][2]string{{"content-type", "application/grpc"}, {"te", "trailers"}},
		HTTP2:  true, GRPC: true, Connections: 1, Streams: 1, Requests: 8, Loops: 1, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"OK": 2, "UNAVAILABLE": 2, "INTERNAL": 2, "UNIMPLEMENTED": 2}
	if r.GRPC == nil || !maps.Equal(r.GRPC.Status, want) || r.GRPC.Messages != 2*2+2*1 {
		t.Fatalf("gRPC %+v, want %v and 6 messages (errors %v)", r.GRPC, want, r.Errors)
	}
	if r.Requests != 8 || r.Status[200] != 6 || r.Status[404] != 2 {
		t.Fatalf("%d responses, statuses %v", r.Requests, r.Status)
	}
}

func TestGRPCNeedsHTTP2(t *testing.T) {
	_, err := Run(context.Background(), Config{URL: "http://127.0.0.1:1/a.B/C", GRPC: true, Requests: 1})
	if err == nil || !strings.Contains(err.Error(), "need HTTP2") {
		t.Fatalf("err = %v, want one saying gRPC needs HTTP2", err)
	}
}
