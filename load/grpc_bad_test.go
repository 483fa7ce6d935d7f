package load

import (
	"context"
	"maps"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/gust-http/gust/result"
)

// TestGRPCBadAnswersAreCountedByName runs calls against a server that
// answers every one of them the same wrong way, and finds each counted
// under its own name: a gRPC status (from the broken body or the missing
// trailer) or, for a reset stream, an error kind. Client-streaming calls
// of 3 messages are answered once their stream has ended.
func TestGRPCBadAnswersAreCountedByName(t *testing.T) {
	msg := func(flag byte, body string) []byte {
		n := len(body)
		return append([]byte{flag, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, body...)
	}
	type answer struct {
		fields   []string // the response head after :status 200
		data     []byte
		trailers bool // grpc-status 0 in trailers; false: none
		reset    bool // RST_STREAM instead of an answer
	}
	grpcHead := []string{"content-type", "application/grpc"}
	for _, tc := range []struct {
		name   string
		answer answer
		status map[string]int64
		errors map[result.ErrorKind]int64
	}{
		{"a whole answer is OK", answer{grpcHead, msg(0, "hi"), true, false}, map[string]int64{"OK": 6}, nil},
		{"a malformed length prefix is INTERNAL", answer{grpcHead, msg(7, "hi"), true, false}, map[string]int64{"INTERNAL": 6}, nil},
		{"a body cut inside its prefix is INTERNAL", answer{grpcHead, msg(0, "hi")[:3], true, false}, map[string]int64{"INTERNAL": 6}, nil},
		{"a message over 4 MiB is RESOURCE_EXHAUSTED", answer{grpcHead, []byte{0, 0, 0x40, 0, 1}, true, false}, map[string]int64{"RESOURCE_EXHAUSTED": 6}, nil},
		{"a missing grpc-status trailer is INTERNAL", answer{grpcHead, msg(0, "hi"), false, false}, map[string]int64{"INTERNAL": 6}, nil},
		{"a compressed message without grpc-encoding is INTERNAL", answer{grpcHead, msg(1, "hi"), true, false}, map[string]int64{"INTERNAL": 6}, nil},
		{"a compressed message with grpc-encoding is OK", answer{append(grpcHead, "grpc-encoding", "gzip"), msg(1, "hi"), true, false}, map[string]int64{"OK": 6}, nil},
		{"a reset stream is a stream_reset error", answer{reset: true}, map[string]int64{}, map[result.ErrorKind]int64{result.ErrStreamReset: 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.answer
			srv := newFramerServer(t, nil, false, func(c *framerConn, f xhttp2.Frame) bool {
				id, end := requestEnd(f)
				if !end {
					return true
				}
				c.mu.Lock()
				defer c.mu.Unlock()
				if a.reset {
					c.fr.WriteRSTStream(id, xhttp2.ErrCodeInternal)
					return true
				}
				c.hbuf.Reset()
				c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
				for i := 0; i+1 < len(a.fields); i += 2 {
					c.henc.WriteField(hpack.HeaderField{Name: a.fields[i], Value: a.fields[i+1]})
				}
				c.writeBlock(id, c.hbuf.Bytes(), false)
				c.fr.WriteData(id, !a.trailers, a.data)
				if a.trailers {
					c.hbuf.Reset()
					c.henc.WriteField(hpack.HeaderField{Name: "grpc-status", Value: "0"})
					c.writeBlock(id, c.hbuf.Bytes(), true)
				}
				return true
			})
			r, err := Run(context.Background(), Config{
				URL: "http://" + srv.ln.Addr().String() + "/echo.Echo/Collect", Method: "POST", Body: []byte("\x00\x00\x00\x00\x00"),
				Header: [][2]string{{"content-type", "application/grpc"}, {"te", "trailers"}},
				HTTP2:  true, GRPC: true, GRPCStream: GRPCStream{Client: true, Send: 3},
				Connections: 1, Streams: 2, Requests: 6, Loops: 1, Timeout: 5 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			errs := map[result.ErrorKind]int64{}
			maps.Copy(errs, r.Errors)
			if tc.errors == nil {
				tc.errors = map[result.ErrorKind]int64{}
			}
			if r.GRPC == nil && len(tc.status) > 0 || r.GRPC != nil && !maps.Equal(r.GRPC.Status, tc.status) || !maps.Equal(errs, tc.errors) {
				t.Fatalf("gRPC %+v, errors %v; want statuses %v, errors %v", r.GRPC, r.Errors, tc.status, tc.errors)
			}
			if r.GRPC != nil && r.GRPC.Sent != 18 {
				t.Fatalf("%d messages sent, want 3 per call (18)", r.GRPC.Sent)
			}
		})
	}
}
