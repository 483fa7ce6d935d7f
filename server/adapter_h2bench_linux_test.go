//go:build linux

package server

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"testing"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// grpcShaped is a net/http handler that uses the ResponseWriter as
// grpc-go's ServeHTTP does for a unary call: the body read to its end,
// the headers and the trailers declared, the message written and
// flushed, a flush more, then the status as trailers.
var grpcShaped = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	h := w.Header()
	h["Date"] = nil
	h.Set("Content-Type", r.Header.Get("Content-Type"))
	h.Add("Trailer", "Grpc-Status")
	h.Add("Trailer", "Grpc-Message")
	h.Add("Trailer", "Grpc-Status-Details-Bin")
	w.WriteHeader(200)
	w.Write([]byte{0, 0, 0, 0, 0})
	w.(http.Flusher).Flush()
	w.(http.Flusher).Flush()
	h.Set("Grpc-Status", "0")
})

// BenchmarkH2AdapterGRPCShaped measures a gRPC-shaped unary call (a POST
// with gRPC's request headers and a 5-byte message, grpcShaped's answer)
// through the net/http adapter in Auto mode, over loopback, the client's
// side included (prebuilt frames, the answer's frame headers scanned).
func BenchmarkH2AdapterGRPCShaped(b *testing.B) {
	s := start(b, HTTPHandler(grpcShaped), Config{H2C: true, Loops: 1})
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	fr := xhttp2.NewFramer(c, nil)
	io.WriteString(c, xhttp2.ClientPreface)
	fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 1 << 30})
	fr.WriteWindowUpdate(0, 1<<31-1-65535)
	var hb bufferWriter
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":authority", "bench"},
		{":path", "/grpc.testing.TestService/EmptyCall"}, {"content-type", "application/grpc"},
		{"user-agent", "grpc-go/1.85.0"}, {"te", "trailers"}, {"grpc-accept-encoding", "gzip"}, {"grpc-timeout", "19999m"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1], Sensitive: true}) // the same bytes every time
	}
	block := hb.b
	req := make([]byte, 9+len(block)+9+5)
	req[0], req[1], req[2] = byte(len(block)>>16), byte(len(block)>>8), byte(len(block))
	req[3], req[4] = 0x1, 0x4 // HEADERS, END_HEADERS
	copy(req[9:], block)
	data := req[9+len(block):]
	data[2], data[3], data[4] = 5, 0x0, 0x1 // DATA, END_STREAM
	r := bufio.NewReaderSize(c, 64<<10)
	head := make([]byte, 9)
	id := uint32(1)
	round := func() {
		binary.BigEndian.PutUint32(req[5:9], id)
		binary.BigEndian.PutUint32(data[5:9], id)
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := io.ReadFull(r, head); err != nil {
				b.Fatal(err)
			}
			n := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
			if _, err := r.Discard(n); err != nil {
				b.Fatal(err)
			}
			sid := binary.BigEndian.Uint32(head[5:9]) & 0x7fffffff
			if (head[3] == 0x0 || head[3] == 0x1) && sid == id && head[4]&0x1 != 0 {
				break
			}
		}
		id += 2
	}
	round()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		round()
	}
}
