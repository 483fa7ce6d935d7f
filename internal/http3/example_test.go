package http3_test

import (
	"fmt"

	"github.com/gust-http/gust/internal/http3"
)

// A request's HEADERS frame built by a client and read by a server: the
// stream's bytes may arrive in any pieces.
func Example() {
	// Client: encode the request head and frame it.
	sec := http3.AppendSectionPrefix(nil)
	sec = http3.AppendField(sec, ":method", "GET")
	sec = http3.AppendField(sec, ":scheme", "https")
	sec = http3.AppendField(sec, ":authority", "example.com")
	sec = http3.AppendField(sec, ":path", "/hello")
	sec = http3.AppendField(sec, "accept", "*/*")
	stream := http3.AppendHeaders(nil, sec)

	// Server: read the frames as the bytes arrive, three at a time.
	var r http3.FrameReader
	var d http3.Decoder
	var fields []http3.Field
	var h http3.RequestHead
	for len(stream) > 0 {
		piece := stream[:min(3, len(stream))]
		stream = stream[len(piece):]
		for len(piece) > 0 {
			f, n, ok, err := r.Next(piece)
			if err != nil {
				fmt.Println("close the connection with", http3.CodeOf(err))
				return
			}
			piece = piece[n:]
			if !ok {
				break
			}
			if f.Type != http3.FrameHeaders {
				continue
			}
			if fields, err = d.Decode(fields[:0], f.Payload); err != nil {
				fmt.Println("error:", http3.CodeOf(err))
				return
			}
			if err := http3.CheckRequest(fields, &h, false); err != nil {
				fmt.Println("reset the stream with", http3.CodeOf(err))
				return
			}
			fmt.Printf("%s %s%s, %d field(s)\n", h.Method, h.Authority, h.Path, len(h.Fields))
		}
	}
	// Output: GET example.com/hello, 1 field(s)
}
